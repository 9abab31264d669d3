import { Command } from 'commander';
import { startPawServices } from '../services/start-paw-services.js';
import { runSchedulingCommand } from '../services/scheduling-command.js';
import { parseKindList } from '../services/until-signal.js';

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
    .action((options: { jobs?: string; kinds?: string[] }) =>
      runSchedulingCommand({
        command: 'start',
        component: 'paw',
        flags: options,
        runsWorkers: true,
        startUp: async (context) => {
          const { scheduler, workers, outcomes } = await startPawServices({
            ...context,
            workers: { kinds: options.kinds },
          });
          return {
            outcomes,
            platform: workers.platform,
            ready: () => {
              const { catchUp } = scheduler;
              context.status(
                `scheduler caught up (${catchUp.enqueued} enqueued, ${catchUp.missed} missed); ` +
                  `workers: ${workers.kinds.join(', ')}`,
              );
              context.status(`ready (replica ${scheduler.replica})`);
            },
          };
        },
      }),
    );
}
