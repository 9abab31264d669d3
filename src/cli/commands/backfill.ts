import { Command, Option } from 'commander';
import {
  checkOptionsFrom,
  findDefinition,
  loadDefinitions,
} from '../../definitions/load-definitions.js';
import { UsageError } from '../../shared/usage-error.js';
import { silentLogger } from '../../shared/logger.js';
import { RunProducer } from '../../queue/run-producer.js';
import { RunQueues } from '../../queue/run-queues.js';
import { CronSchedule } from '../../definitions/schedule/cron-schedule.js';
import {
  BACKFILL_OVERLAPS,
  backfillOverlapOf,
  backfillTimes,
  type BackfillOverlap,
} from '../../scheduler/backfill-times.js';
import { RunFirer } from '../../scheduler/run-firer.js';
import { SchedulePauses } from '../../scheduler/schedule-pauses.js';
import { renderTable } from '../output/table.js';
import { loadCommandSettings } from '../command-settings.js';
import { parseTimeOption } from '../option-parsers.js';
import { withCommandRedis } from '../redis-session.js';

/** A backfill fires at most this many times: a wider range is a mistake more often than not. */
const MAX_FIRES = 1_000;

interface BackfillOptions {
  from: Date;
  to?: Date;
  overlap?: BackfillOverlap;
  jobs?: string;
  json?: boolean;
}

/**
 * `paw backfill <id> --from T1 [--to T2]`: fires each time the definition's schedule had in the
 * range that has no run yet (see backfillTimes): one after another under `overlap: skip`, all
 * at once under `allow` (or as `--overlap` says). A definition paused now has its times recorded
 * as skipped (paused), as a scheduled fire would.
 */
export function backfillCommand(): Command {
  return new Command('backfill')
    .description('fire the scheduled times of a range that have no run yet, once each')
    .argument('<id>', 'the id of the job definition')
    .requiredOption(
      '--from <time>',
      'the start of the range: an ISO 8601 time, or a duration ago (6h, 2d)',
      parseTimeOption,
    )
    .option(
      '--to <time>',
      'the end of the range (default: now): an ISO 8601 time, or a duration ago',
      parseTimeOption,
    )
    .addOption(
      new Option(
        '--overlap <policy>',
        'queue: run the times one after another; allow: all at once (default: queue for a definition with overlap: skip, allow for overlap: allow)',
      ).choices(BACKFILL_OVERLAPS),
    )
    .option('--jobs <dir>', 'folder of job definitions (default: jobs.dir, PAW_JOBS_DIR or ./jobs)')
    .option('--json', 'print what it fired and what already existed as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  $ paw backfill nightly-vms --from 2026-11-20T00:00:00Z --to 2026-11-23T00:00:00Z\n' +
        '  $ paw backfill every-hour --from 12h --json   # from 12 hours ago to now\n' +
        '\nEach fire is recorded under the run id the scheduler would give it: a time that already\n' +
        'has a run is reported as existing, never fired twice. A time whose fire was skipped or\n' +
        'missed has had no run: it gets one of its own (<run id>-backfill). Runs are queued for the\n' +
        'workers; under --overlap queue each waits for the one before it.\n' +
        `At most ${MAX_FIRES} times at once; the range must not reach into the future.\n` +
        '\nExit codes: 0 done (fired or found every time); 2 bad usage.',
    )
    .action(async (id: string, options: BackfillOptions) => {
      const { settings } = await loadCommandSettings(options);
      const definitions = await loadDefinitions(settings.jobs.dir, checkOptionsFrom(settings));
      const { definition } = findDefinition(definitions, id, settings.jobs.dir);
      const now = new Date();
      const from = options.from;
      const to = options.to ?? now;
      if (to.getTime() > now.getTime()) {
        throw new UsageError(
          `--to ${to.toISOString()}: the range must end now or before; the scheduler fires what is to come`,
        );
      }
      if (from.getTime() >= to.getTime()) {
        throw new UsageError(
          `--from ${from.toISOString()}: the range must start before it ends (${to.toISOString()})`,
        );
      }
      const { schedule } = definition;
      const fireTimes = CronSchedule.create(schedule.cron, schedule.timezone).firesBetween(
        new Date(from.getTime() - 1),
        to,
      );
      if (fireTimes.length > MAX_FIRES) {
        throw new UsageError(
          `${id} has ${fireTimes.length} fire times in that range, more than ${MAX_FIRES}: backfill a narrower one`,
        );
      }
      const results = await withCommandRedis(settings, async (redis, outcomes) => {
        const queues = new RunQueues(redis, settings);
        try {
          const firer = new RunFirer(
            outcomes.runs,
            new RunProducer(queues),
            silentLogger(),
            undefined,
            new SchedulePauses(redis, settings.redis.prefix),
          );
          await queues.applyGlobalConcurrency();
          return await backfillTimes(
            { firer, runs: outcomes.runs },
            definition,
            fireTimes,
            options.overlap ?? backfillOverlapOf(definition),
            (count) => {
              if (options.json !== true && fireTimes.length > 20 && count % 20 === 0) {
                process.stderr.write(`paw backfill: ${count}/${fireTimes.length} times\n`);
              }
            },
          );
        } finally {
          await queues.close();
        }
      });
      const count = (result: string): number =>
        results.filter((entry) => entry.result.result === result).length;
      const summary = {
        id,
        from: from.toISOString(),
        to: to.toISOString(),
        times: results.length,
        enqueued: count('enqueued'),
        // A run still queued is enqueued again, which BullMQ ignores: it already had its run.
        existing: count('exists') + count('re-enqueued'),
        skipped: count('skipped') + count('paused') + count('calendar'),
      };
      if (options.json === true) {
        const fires = results.map(({ fireTime, result }) => ({
          fireTime,
          runId: result.runId,
          result: result.result,
          status: result.status,
          ...(result.reason === undefined ? {} : { reason: result.reason }),
        }));
        process.stdout.write(`${JSON.stringify({ ...summary, fires }, null, 2)}\n`);
        return;
      }
      if (results.length > 0) {
        process.stdout.write(
          `${renderTable(
            ['FIRE TIME', 'RUN', 'RESULT', 'WHY'],
            results.map(({ fireTime, result }) => [
              fireTime,
              result.runId,
              result.result,
              result.reason ?? '',
            ]),
          )}\n`,
        );
      }
      process.stdout.write(
        `${id}: ${summary.times} time(s) from ${summary.from} to ${summary.to}: ` +
          `${summary.enqueued} enqueued, ${summary.existing} already had a run, ${summary.skipped} skipped\n`,
      );
    });
}
