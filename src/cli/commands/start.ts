import { Command } from 'commander';
import { startPawServices } from '../../app/start-paw-services.js';
import { Shutdown } from '../../lifecycle/shutdown.js';
import { createLogger } from '../../log/logger.js';
import { loadCommandSettings } from '../command-settings.js';
import { definitionsToSchedule } from '../definitions-to-schedule.js';
import { followDefinitionChanges } from '../follow-definitions.js';
import { checkOpsExposure, commandMetrics, serveOps } from '../serve-ops.js';
import { parseKindList, serveUntilSignal } from '../until-signal.js';

/**
 * `paw start`: the scheduler and the workers in one process, until SIGTERM or SIGINT. The same
 * as one `paw scheduler` and one `paw worker` side by side; more of either may run elsewhere.
 */
export function startCommand(): Command {
  return new Command('start')
    .description('run the scheduler and the workers in one process')
    .option('--jobs <dir>', 'folder of job definitions (default: jobs.dir, PAW_JOBS_DIR or ./jobs)')
    .option(
      '--kinds <kinds>',
      'comma-separated job kinds the workers run (default: every kind)',
      parseKindList,
    )
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  $ paw start                         # jobs/*.yaml, every kind\n' +
        '  $ paw start --jobs /etc/paw/jobs    # another folder of definitions\n' +
        '\nSIGTERM or SIGINT: the workers stop taking jobs and drain (worker.shutdownGraceMs), the\n' +
        'scheduler stops ticking; a second signal forces exit. Fires missed while nothing ran are\n' +
        "caught up within their definition's catchUp window.\n" +
        '\nA change in the folder of definitions, or SIGHUP, reloads them: an invalid change is refused\n' +
        'and the last valid set keeps running; runs already started finish with the definition they\n' +
        'started with.',
    )
    .action(async (options: { jobs?: string; kinds?: string[] }) => {
      const { settings } = await loadCommandSettings(options);
      const status = (line: string): void => {
        process.stderr.write(`paw start: ${line}\n`);
      };
      const logger = createLogger({ level: settings.log.level, base: { component: 'paw' } });
      checkOpsExposure(settings, logger);
      const definitionSet = await definitionsToSchedule(settings, status, logger);
      const shutdown = new Shutdown({ logger, graceMs: settings.worker.shutdownGraceMs });
      const metrics = commandMetrics(settings, 'start');
      await serveUntilSignal(
        shutdown,
        status,
        'stopping (send the signal again to force)',
        async () => {
          const { scheduler, workers, outcomes } = await startPawServices({
            settings,
            definitions: definitionSet,
            logger,
            shutdown,
            metrics,
            workers: { kinds: options.kinds },
          });
          // The same process context serves the ops server and follows definition changes.
          const context = {
            settings,
            logger,
            shutdown,
            metrics,
            definitions: definitionSet,
            status,
          };
          await serveOps({ ...context, role: 'start', platform: workers.platform, outcomes });
          followDefinitionChanges(context);
          const { catchUp } = scheduler;
          status(
            `scheduler caught up (${catchUp.enqueued} enqueued, ${catchUp.missed} missed); ` +
              `workers: ${workers.kinds.join(', ')}`,
          );
          status(`ready (replica ${scheduler.replica})`);
        },
      );
    });
}
