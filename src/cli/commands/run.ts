import { Command } from 'commander';
import {
  checkOptionsFrom,
  findDefinition,
  loadDefinitions,
} from '../../definitions/load-definitions.js';
import { silentLogger } from '../../shared/logger.js';
import type { RunRecord } from '../../outcomes/outcome-records.js';
import type { RunStore } from '../../outcomes/run-store.js';
import { isActiveStatus } from '../../outcomes/outcome-status.js';
import { RunProducer } from '../../queue/run-producer.js';
import { RunQueues, queueNameOf } from '../../queue/run-queues.js';
import { RunFirer } from '../../scheduler/run-firer.js';
import { formatDuration } from '../../shared/duration.js';
import { ExitCode } from '../exit-codes.js';
import { loadCommandSettings } from '../command-settings.js';
import { parseDurationOption } from '../option-parsers.js';
import { withCommandRedis } from '../redis-session.js';
import { printPreview } from './run-preview-output.js';
import { printable } from '../../shared/printable.js';

interface RunOptions {
  jobs?: string;
  allowOverlap?: boolean;
  wait?: boolean;
  timeout?: number;
  json?: boolean;
  dryRun?: boolean;
}

const POLL_MS = 1_000;

/**
 * `paw run <id>`: fires a definition now, as a manual run (also a disabled one). The run is
 * recorded and its job enqueued like a scheduled fire; a worker runs it. With `--wait` the
 * command follows the run until it ends.
 */
export function runCommand(): Command {
  return new Command('run')
    .description('fire a job definition now (a manual run); a worker runs it')
    .argument('<id>', 'the id of the job definition')
    .option('--jobs <dir>', 'folder of job definitions (default: jobs.dir, PAW_JOBS_DIR or ./jobs)')
    .option('--allow-overlap', 'run even if the previous run is still active (overlap: skip)')
    .option('--wait', 'wait for the run to end, showing its progress on stderr')
    .option(
      '--timeout <duration>',
      'with --wait: give up waiting after this long',
      parseDurationOption,
    )
    .option('--json', 'print the result as JSON')
    .option(
      '--dry-run',
      'resolve the targets against the platform now and print what a run would do; touch nothing',
    )
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  $ paw run nightly-vms --wait      # fire now and follow the run to its end\n' +
        '  $ paw run nightly-vms --dry-run   # what a run would do now, touching nothing\n' +
        '\nExit codes: 0 enqueued (with --wait: the run succeeded; with --dry-run: the run could go ahead);\n' +
        '1 skipped, or the run did not succeed (with --dry-run: it would fail as a whole); 2 bad usage.',
    )
    .action(async (id: string, options: RunOptions) => {
      const { settings } = await loadCommandSettings(options);
      const definitions = await loadDefinitions(settings.jobs.dir, checkOptionsFrom(settings));
      const { definition } = findDefinition(definitions, id, settings.jobs.dir);
      if (options.dryRun === true) {
        await printPreview(definition, options.json === true);
        return;
      }

      await withCommandRedis(settings, async (redis, { runs }) => {
        const queues = new RunQueues(redis, settings);
        try {
          const firer = new RunFirer(runs, new RunProducer(queues), silentLogger());
          const fired = await firer.fire(definition, new Date(), 'manual', {
            ignoreOverlap: options.allowOverlap === true,
          });
          const queue = queueNameOf(settings.queues, definition.kind);
          let run = await runs.get(fired.runId);
          if (fired.result === 'enqueued' && options.wait === true && run !== undefined) {
            process.stderr.write(
              `paw run: ${fired.runId} queued on ${queue}; waiting for it to end\n`,
            );
            run = await waitForRun(runs, fired.runId, options.timeout);
          }

          if (options.json === true) {
            process.stdout.write(
              `${JSON.stringify({ ...fired, queue: fired.result === 'enqueued' ? queue : null, run: run ?? null }, null, 2)}\n`,
            );
          } else if (fired.result === 'skipped') {
            process.stderr.write(
              `${printable(`paw run: ${id} was not run: ${fired.reason ?? 'skipped'}; use --allow-overlap to run it anyway`)}\n`,
            );
          } else {
            process.stdout.write(
              `${fired.runId} ${run?.status ?? fired.status} (queue ${queue})\n`,
            );
            if (run !== undefined && options.wait === true)
              process.stdout.write(`${describeCounts(run)}\n`);
          }

          if (fired.result !== 'enqueued') process.exitCode = ExitCode.failure;
          else if (options.wait === true && run?.status !== 'succeeded')
            process.exitCode = ExitCode.failure;
        } finally {
          await queues.close();
        }
      });
    });
}

async function waitForRun(
  runs: RunStore,
  runId: string,
  timeoutMs: number | undefined,
): Promise<RunRecord | undefined> {
  const started = Date.now();
  let lastLine = '';
  for (;;) {
    const run = await runs.get(runId);
    if (run === undefined || !isActiveStatus(run.status)) return run;
    const line = `paw run: ${run.status}, ${describeCounts(run)}`;
    if (line !== lastLine) process.stderr.write(`${printable(line)}\n`);
    lastLine = line;
    if (timeoutMs !== undefined && Date.now() - started >= timeoutMs) {
      process.stderr.write(
        `paw run: still ${run.status} after ${formatDuration(timeoutMs)}; stopped waiting\n`,
      );
      return run;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function describeCounts(run: RunRecord): string {
  const { counts } = run;
  const done =
    counts.succeeded + counts.failed + counts.skipped + counts.timedOut + counts.canceled;
  return (
    `${done}/${counts.total} items done: ${counts.succeeded} succeeded, ${counts.failed} failed, ` +
    `${counts.timedOut} timed out, ${counts.skipped} skipped, ${counts.canceled} canceled`
  );
}
