import { Command, InvalidArgumentError } from 'commander';
import { renderDemoSummary } from '../demo/demo-summary.js';
import { runDemo } from '../demo/run-demo.js';
import { ExitCode } from '../exit-codes.js';
import { examples, parseDurationOption, positiveInteger } from '../option-parsers.js';

/** The demo must run long enough for each of its definitions to fire once. */
const MIN_DURATION_MS = 15_000;
const MAX_DURATION_MS = 3_600_000;

function demoDuration(text: string): number {
  const ms = parseDurationOption(text);
  if (ms < MIN_DURATION_MS || ms > MAX_DURATION_MS) {
    throw new InvalidArgumentError(
      'Give at least 15s (so that every definition fires once) and at most 1h.',
    );
  }
  return ms;
}

/**
 * `paw demo` (`npm run demo`): paw end to end on this machine in about a minute, with nothing to
 * set up but Node and redis-server. See src/cli/demo/run-demo.ts.
 */
export function demoCommand(): Command {
  return new Command('demo')
    .description(
      'see paw work, end to end, in about a minute: the platform simulator, a private Redis, and ' +
        'paw (scheduler, workers, dashboard) running a snapshot of a few hundred workloads, a ' +
        'maintenance window and a secret rotation; then a summary of every run',
    )
    .option(
      '--for <duration>',
      'how long the definitions fire (15s to 1h); the demo then waits for the runs in flight',
      demoDuration,
      60_000,
    )
    .option('--workloads <n>', "workloads in the simulator's inventory", positiveInteger, 400)
    .option('--json', 'print the summary as JSON (progress still goes to standard error)')
    .addHelpText(
      'after',
      '\nWhat runs: the platform simulator in this process (time 120 times faster; it fails about\n' +
        '3% of snapshot jobs and cancels 1% on purpose, and one of its clusters is disconnected),\n' +
        'Redis (PAW_REDIS_URL under a key prefix of its own, else a private redis-server from the\n' +
        'PATH on a free port), and paw with three definitions on compressed schedules (six-field\n' +
        'cron): snapshots every 20 s, a 15 s maintenance window on Silver, a rotation of a service\n' +
        "account's secret. Progress goes to standard error; the dashboard's address is printed\n" +
        '(port 8090, or a free one). Ctrl-C ends it early.\n' +
        '\nAt the end: a summary of every run and its items, and checks. Nothing is left behind:\n' +
        'servers stopped, temporary files removed, the private Redis stopped (or the demo keys\n' +
        'deleted from PAW_REDIS_URL).\n' +
        "\nExit codes: 0 everything behaved as the simulator's faults allow (every run ended, none\n" +
        "was missed, every failure is one the simulator injects, the window's SLA Domain is not\n" +
        'left paused, the rotated secret works); 1 otherwise; 2 bad usage, or no Redis to use.\n' +
        examples('npm run demo', 'paw demo --for 2m', 'paw demo --for 20s --json'),
    )
    .action(async (options: { for: number; workloads: number; json?: boolean }) => {
      const stop = new AbortController();
      const onSignal = (signal: NodeJS.Signals): void => {
        if (!stop.signal.aborted) {
          stop.abort();
          return;
        }
        process.stderr.write('\npaw demo: stopping at once\n');
        process.exit(signal === 'SIGINT' ? 130 : 143);
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      try {
        const report = await runDemo({
          forMs: options.for,
          workloads: options.workloads,
          stderr: process.stderr,
          stop: stop.signal,
        });
        if (options.json === true) {
          process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        } else {
          process.stdout.write(renderDemoSummary(report));
          if (report.dashboardUrl !== undefined) {
            process.stdout.write(
              `The dashboard was at ${report.dashboardUrl}/ while the demo ran (it stopped with it).\n`,
            );
          }
        }
        process.exitCode = report.ok ? ExitCode.ok : ExitCode.failure;
      } finally {
        process.removeListener('SIGINT', onSignal);
        process.removeListener('SIGTERM', onSignal);
      }
    });
}
