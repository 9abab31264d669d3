import { Command } from 'commander';
import { startPawServices } from '../services/start-paw-services.js';
import { formatInTimeZone } from '../../shared/time-zone.js';
import { runSchedulingCommand } from '../services/scheduling-command.js';

/**
 * `paw scheduler`: runs a scheduler replica alone (no workers), until SIGTERM or SIGINT. Any
 * number of replicas may run: one is elected per fire. With platform credentials it is also
 * where a split deployment keeps protection coverage (start-paw-services.ts). Status lines go to stderr, prefixed
 * `paw scheduler:`; structured logs (JSON) go there too.
 */
export function schedulerCommand(): Command {
  return new Command('scheduler')
    .description('run the scheduler alone: enqueue each fire of the job definitions (no workers)')
    .option('--jobs <dir>', 'folder of job definitions (default: jobs.dir, PAW_JOBS_DIR or ./jobs)')
    .addHelpText(
      'after',
      '\nReloads the job definitions when their folder changes and on SIGHUP (an invalid change is\n' +
        'refused and the last valid set keeps running).\n' +
        'Stops gracefully on SIGTERM or SIGINT (a second signal forces). Several replicas may run;\n' +
        'each fire is enqueued once. Fires missed while none ran are caught up within their\n' +
        "definition's catchUp window, or recorded as missed.\n" +
        '\nGiven platform credentials (PAW_CREDENTIALS_FILE), it also keeps protection coverage:\n' +
        'paw_coverage_workloads on /metrics, /api/coverage and /coverage, the morning digest.',
    )
    .action((options: { jobs?: string }) =>
      runSchedulingCommand({
        command: 'scheduler',
        component: 'scheduler',
        flags: options,
        runsWorkers: false,
        startUp: async (context) => {
          const { status } = context;
          const {
            scheduler: service,
            outcomes,
            platform,
          } = await startPawServices({
            ...context,
            workers: false,
          });
          const { catchUp } = service;
          status(
            `caught up at ${catchUp.at.toISOString()}: ${catchUp.enqueued} fire${catchUp.enqueued === 1 ? '' : 's'} enqueued, ` +
              `${catchUp.missed} recorded as missed` +
              (catchUp.unrecordedMissed > 0
                ? ` (${catchUp.unrecordedMissed} older missed, not recorded)`
                : ''),
          );
          const next = service.scheduler
            .nextFires()
            .filter((entry) => entry.next !== undefined)
            .sort((a, b) => (a.next?.getTime() ?? 0) - (b.next?.getTime() ?? 0))[0];
          return {
            outcomes,
            platform,
            ready: () =>
              status(
                `ready (replica ${service.replica})` +
                  (next?.next === undefined
                    ? '; nothing to schedule'
                    : `; next fire: ${next.definition.id} at ${formatInTimeZone(next.next, next.definition.schedule.timezone)}`),
              ),
          };
        },
      }),
    );
}
