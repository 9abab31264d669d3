import { Command } from 'commander';
import type { Redis } from 'ioredis';
import type { Settings } from '../../config/settings-schema.js';
import { InvalidDefinitionsError } from '../../definitions/definition-problem.js';
import { checkDefinitions, checkOptionsFrom } from '../../definitions/load-definitions.js';
import { UsageError } from '../../shared/usage-error.js';
import { silentLogger } from '../../shared/logger.js';
import { OperatorActions } from '../../outcomes/operator-actions.js';
import {
  SchedulePauses,
  describePause,
  type SchedulePause,
} from '../../scheduler/schedule-pauses.js';
import { parseDuration } from '../../shared/duration.js';
import { printable } from '../../shared/printable.js';
import { closestMatch } from '../../shared/closest-match.js';
import { loadCommandSettings } from '../command-settings.js';
import { operatorName } from '../operator-name.js';
import { withCommandRedis } from '../redis-session.js';

const EXIT_CODES = '\nExit codes: 0 done (or already so); 2 bad usage or an unknown definition id.';

/** `paw schedules pause <id>`: stop a definition's scheduled fires, for every scheduler replica. */
export function pauseCommand(): Command {
  return new Command('pause')
    .description("pause a definition's schedule: its fires are recorded as skipped (paused)")
    .argument('<id>', 'the id of the job definition')
    .requiredOption('--reason <text>', 'why (recorded with the pause, shown on every skipped fire)')
    .option(
      '--until <time>',
      'unpause by itself: an ISO 8601 time, or a duration from now (2h, 3d)',
    )
    .option('--by <name>', 'who pauses it (default: user@host)')
    .option('--jobs <dir>', 'folder of job definitions (default: jobs.dir, PAW_JOBS_DIR or ./jobs)')
    .option('--json', 'print the result as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  $ paw schedules pause nightly-vms --reason "storage migration, CHG-1234" --until 2026-12-01T06:00:00Z\n' +
        '  $ paw schedules pause nightly-vms --reason "change freeze" --until 3d --json\n' +
        '\nEvery scheduler replica honours the pause at its next fire; manual runs (paw run) still\n' +
        'run, and what a run already started (a window\u2019s resume) still happens. Pausing a\n' +
        'paused definition changes nothing.' +
        EXIT_CODES,
    )
    .action(
      async (
        id: string,
        options: { reason: string; until?: string; by?: string; jobs?: string; json?: boolean },
      ) => {
        const { settings } = await loadCommandSettings(options);
        await requireDefinition(settings, id);
        const now = new Date();
        const pause: SchedulePause = {
          by: options.by ?? operatorName(),
          at: now.toISOString(),
          reason: options.reason.trim(),
          ...(options.until === undefined ? {} : { until: untilTime(options.until, now) }),
        };
        if (pause.reason === '') throw new UsageError('--reason: say why the schedule is paused');
        const change = await withCommandRedis(settings, async (redis) => {
          const result = await new SchedulePauses(redis, settings.redis.prefix).pause(id, pause);
          await record(
            redis,
            settings,
            pause.by,
            'pause schedule',
            id,
            result.changed,
            pause.reason,
          );
          return result;
        });
        print(
          options.json,
          { id, paused: true, changed: change.changed, pause: change.pause },
          () =>
            change.changed
              ? `${id}: ${describePause(pause)}`
              : `${id}: already ${change.pause === undefined ? 'paused' : describePause(change.pause)}`,
        );
      },
    );
}

/** `paw schedules unpause <id>`. */
export function unpauseCommand(): Command {
  return new Command('unpause')
    .description("lift a definition's pause: its next fire runs")
    .argument('<id>', 'the id of the job definition')
    .option('--by <name>', 'who unpauses it (default: user@host)')
    .option('--jobs <dir>', 'folder of job definitions (default: jobs.dir, PAW_JOBS_DIR or ./jobs)')
    .option('--json', 'print the result as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  $ paw schedules unpause nightly-vms\n' +
        '  $ paw schedules unpause nightly-vms --by alice --json\n' +
        `\nUnpausing a definition that is not paused changes nothing.${EXIT_CODES}`,
    )
    .action(async (id: string, options: { by?: string; jobs?: string; json?: boolean }) => {
      const { settings } = await loadCommandSettings(options);
      await requireDefinition(settings, id);
      const by = options.by ?? operatorName();
      const change = await withCommandRedis(settings, async (redis) => {
        const result = await new SchedulePauses(redis, settings.redis.prefix).unpause(
          id,
          new Date(),
        );
        await record(redis, settings, by, 'unpause schedule', id, result.changed);
        return result;
      });
      print(options.json, { id, paused: false, changed: change.changed }, () =>
        change.changed ? `${id}: unpaused by ${by}` : `${id}: was not paused`,
      );
    });
}

function untilTime(text: string, now: Date): string {
  const ms = parseDuration(text);
  const at = ms !== undefined ? now.getTime() + ms : Date.parse(text);
  if (!Number.isFinite(at) || at <= now.getTime()) {
    throw new UsageError(
      `--until ${text}: give a time to come (2026-12-01T08:00:00Z) or a duration from now (2h, 3d)`,
    );
  }
  return new Date(at).toISOString();
}

async function requireDefinition(settings: Settings, id: string): Promise<void> {
  const report = await checkDefinitions(settings.jobs.dir, checkOptionsFrom(settings));
  if (report.problems.length > 0) throw new InvalidDefinitionsError(report.problems);
  const ids = report.definitions.map(({ definition }) => definition.id);
  if (!ids.includes(id)) {
    const guess = closestMatch(id, ids);
    throw new UsageError(
      `no job definition has the id ${id} in ${report.dir}` +
        (guess === undefined
          ? `; known ids: ${ids.join(', ') || '(none)'}`
          : `; did you mean ${guess}?`),
    );
  }
}

async function record(
  redis: Redis,
  settings: Settings,
  user: string,
  action: string,
  target: string,
  changed: boolean,
  reason?: string,
): Promise<void> {
  await new OperatorActions(redis, settings.redis.prefix, silentLogger()).record({
    user,
    via: 'cli',
    action,
    target,
    outcome: changed ? 'done' : 'no change',
    ...(reason === undefined ? {} : { reason }),
  });
}

/** The result: JSON, or one line (a pause's reason and author escaped: they come from anyone). */
function print(json: boolean | undefined, value: unknown, text: () => string): void {
  process.stdout.write(
    json === true ? `${JSON.stringify(value, null, 2)}\n` : `${printable(text())}\n`,
  );
}
