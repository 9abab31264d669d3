import { Command } from 'commander';
import { InvalidDefinitionsError } from '../../definitions/definition-problem.js';
import { checkDefinitions, checkOptionsFrom } from '../../definitions/load-definitions.js';
import {
  MAX_TIMES_EXAMINED,
  upcomingFires,
  type SkippedFires,
} from '../../definitions/upcoming-fires.js';
import { formatInTimeZone } from '../../shared/time-zone.js';
import { loadCommandSettings } from '../command-settings.js';
import { positiveInteger } from '../option-parsers.js';
import { renderTable } from '../output/table.js';
import type { Settings } from '../../config/settings-schema.js';
import { RedisUnavailableError } from '../../redis/redis-connection.js';
import { SchedulePauses, type SchedulePause } from '../../scheduler/schedule-pauses.js';
import { withCommandRedis } from '../redis-session.js';
import { pauseCommand, unpauseCommand } from './schedule-pause.js';

/**
 * `paw schedules`: every definition with its schedule and next fire times, computed from the
 * definitions, and whether it is paused (from Redis; shown as unknown when Redis cannot be
 * reached). `pause` and `unpause` are its subcommands.
 */
export function schedulesCommand(): Command {
  const command = new Command('schedules')
    .description('list the job definitions with their next fire times')
    .option('--jobs <dir>', 'folder of job definitions (default: jobs.dir, PAW_JOBS_DIR or ./jobs)')
    .option(
      '--count <n>',
      'how many next fire times to show per definition (the times a calendar removes are listed among them)',
      positiveInteger,
      1,
    )
    .option('--json', 'print the schedules as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  $ paw schedules                    # each definition, its next fire, and any pause\n' +
        '  $ paw schedules --count 30         # the next 30 fires, and which a calendar removes\n' +
        '  $ paw schedules pause nightly-vms --reason "storage migration" --until 8h\n' +
        '  $ paw schedules unpause nightly-vms',
    )
    .action(async (options: { jobs?: string; count: number; json?: boolean }) => {
      const { settings } = await loadCommandSettings(options);
      const report = await checkDefinitions(settings.jobs.dir, checkOptionsFrom(settings));
      if (report.problems.length > 0) throw new InvalidDefinitionsError(report.problems);
      const now = new Date();
      const pauses = await pausesIfReachable(settings, now);
      const schedules = report.definitions.map(({ definition, file }) => {
        const { schedule } = definition;
        const upcoming = upcomingFires(schedule, now, options.count);
        return {
          id: definition.id,
          kind: definition.kind,
          enabled: definition.enabled,
          description: definition.description ?? null,
          file,
          cron: schedule.cron,
          timezone: schedule.timezone,
          catchUp: schedule.catchUp,
          overlap: schedule.overlap,
          jitter: schedule.jitter ?? null,
          startDeadline: schedule.startDeadline ?? null,
          duration: 'duration' in schedule ? schedule.duration : null,
          /** null: unknown (Redis unreachable). */
          paused: pauses === undefined ? null : pauses.has(definition.id),
          pause: pauses?.get(definition.id) ?? null,
          nextFires: upcoming.fires,
          /** Times `schedule.skip` removes before the last of nextFires, grouped. */
          skippedFires: upcoming.skipped,
          /** True when the listing gave up looking (calendars remove the next 100,000 times). */
          searchTruncated: upcoming.truncated,
        };
      });

      if (options.json === true) {
        const output = schedules.map((entry) => ({
          ...entry,
          nextFires: entry.nextFires.map((fire) => fire.toISOString()),
          skippedFires: entry.skippedFires.map((group) => ({
            first: group.first.toISOString(),
            last: group.last.toISOString(),
            count: group.count,
            reason: group.reason,
          })),
        }));
        process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
        return;
      }
      if (schedules.length === 0) {
        process.stdout.write(`no job definitions in ${report.dir}\n`);
        return;
      }
      const rows = schedules.flatMap((entry) => {
        const fires = listedFires(entry.nextFires, entry.skippedFires, entry.timezone);
        const first = [
          entry.id,
          entry.kind,
          entry.enabled ? 'yes' : 'no (paw run only)',
          entry.paused === null
            ? 'unknown'
            : entry.pause === null
              ? 'no'
              : `yes: ${entry.pause.reason} (${entry.pause.by}${entry.pause.until === undefined ? '' : `, until ${entry.pause.until}`})`,
          `${entry.cron}${entry.duration === null ? '' : ` for ${entry.duration}`}`,
          entry.timezone,
          entry.overlap,
          entry.catchUp,
          fires[0] ??
            (entry.searchTruncated
              ? `none in the next ${MAX_TIMES_EXAMINED.toLocaleString('en')} times`
              : 'never'),
        ];
        return [first, ...fires.slice(1).map((fire) => ['', '', '', '', '', '', '', '', fire])];
      });
      process.stdout.write(
        `${renderTable(['ID', 'KIND', 'ENABLED', 'PAUSED', 'CRON', 'TIMEZONE', 'OVERLAP', 'CATCH-UP', 'NEXT FIRE (local time)'], rows)}\n`,
      );
      if (pauses === undefined) {
        process.stderr.write(
          'paw schedules: Redis cannot be reached, so paused states are unknown\n',
        );
      }
    });
  // The listing's --jobs and --json belong to it; pause and unpause have their own.
  command.enablePositionalOptions();
  command.addCommand(pauseCommand());
  command.addCommand(unpauseCommand());
  return command;
}

/**
 * The NEXT FIRE column: each fire that runs, and in its place among them each stretch of times a
 * calendar removes (`skipped 16 times: 2026-12-20 00:30 … 2027-01-04 00:30 (calendar change-freeze: …)`).
 */
function listedFires(
  fires: readonly Date[],
  skipped: readonly SkippedFires[],
  timeZone: string,
): string[] {
  const entries = [
    ...fires.map((fire) => ({ at: fire.getTime(), text: formatInTimeZone(fire, timeZone) })),
    ...skipped.map((group) => ({
      at: group.first.getTime(),
      text:
        `skipped${group.count === 1 ? '' : ` ${group.count} times`}: ` +
        formatInTimeZone(group.first, timeZone) +
        (group.count === 1 ? '' : ` … ${formatInTimeZone(group.last, timeZone)}`) +
        ` (${group.reason})`,
    })),
  ];
  return entries.sort((a, b) => a.at - b.at).map((entry) => entry.text);
}

/** The pauses in force, or undefined when Redis cannot be reached (the listing still works). */
async function pausesIfReachable(
  settings: Settings,
  now: Date,
): Promise<Map<string, SchedulePause> | undefined> {
  try {
    return await withCommandRedis(settings, (redis) =>
      new SchedulePauses(redis, settings.redis.prefix).allAt(now),
    );
  } catch (error) {
    if (error instanceof RedisUnavailableError) return undefined;
    throw error;
  }
}
