import { Command } from 'commander';
import { openProcessOutcomes } from '../services/open-outcomes.js';
import { Shutdown } from '../../shared/shutdown.js';
import { startWorkerService } from '../services/worker-service.js';
import { openLongRunningCommand } from '../services/long-running-command.js';
import { commandMetrics, serveOps } from '../services/serve-ops.js';
import { parseKindList, serveUntilSignal } from '../services/until-signal.js';

/**
 * `paw worker`: runs workers alone (no scheduler), until SIGTERM or SIGINT. Any number may run,
 * on any number of machines: they share the queues, the outcome store and the platform's request
 * budget through Redis. Status lines go to stderr, prefixed `paw worker:`; JSON logs too.
 */
export function workerCommand(): Command {
  return new Command('worker')
    .description('run workers alone: take jobs from the queues and run them (no scheduler)')
    .option(
      '--kinds <kinds>',
      'comma-separated job kinds to run (default: every kind): snapshot, sla-window, rotate-secret',
      parseKindList,
    )
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  $ paw worker                      # every kind, concurrency from queues.<kind>.concurrency\n' +
        '  $ paw worker --kinds snapshot     # snapshots only (scale them out on more machines)\n' +
        '\nSIGTERM or SIGINT: stop taking jobs, let active ones finish for worker.shutdownGraceMs,\n' +
        'then abort them (they are retried); a second signal forces exit. All workers together stay\n' +
        'under platform.requestsPerSecond, and a 429 seen by one slows them all.',
    )
    .action(async (options: { kinds?: string[] }) => {
      const { settings, status, logger } = await openLongRunningCommand('worker', 'worker');
      const shutdown = new Shutdown({ logger, graceMs: settings.worker.shutdownGraceMs });
      const metrics = commandMetrics(settings, 'worker');
      await serveUntilSignal(
        shutdown,
        status,
        `stopping: no new jobs; active ones may finish for ${settings.worker.shutdownGraceMs} ms (send the signal again to force)`,
        async () => {
          // Opened before the workers so that they close after them: runs ending while the
          // workers drain are still recorded and reported. The ops server reads the outcomes too.
          const { outcomes, observers } = await openProcessOutcomes({
            settings,
            logger,
            shutdown,
            metrics,
            runsWorkers: true,
          });
          const service = await startWorkerService({
            settings,
            logger,
            shutdown,
            outcomes,
            observers,
            ...(options.kinds === undefined ? {} : { kinds: options.kinds }),
          });
          await serveOps({
            settings,
            logger,
            shutdown,
            metrics,
            role: 'worker',
            platform: service.platform,
            outcomes,
            status,
          });
          status(
            `ready: ${service.kinds.map((kind) => `${kind} (queue ${service.queues.get(kind) ?? kind})`).join(', ')}`,
          );
        },
      );
    });
}
