import { z } from 'zod';
import { evenWithOtherProblems, problem } from './refinement-options.js';
import { DURATION_EXAMPLES, parseDuration, formatDuration } from '../shared/duration.js';
import { isKnownTimeZone, suggestTimeZone } from '../shared/time-zone.js';
import { CronSyntaxError, parseCron } from './schedule/cron-expression.js';
import { CronSchedule } from './schedule/cron-schedule.js';
import { parseSkipDays } from './schedule/skip-days.js';

/** A duration written as text (`2h`, `90s`, `1h30m`); kept as text so a parsed value re-validates. */
export const durationSchema = z
  .string({ error: `expected a duration such as ${DURATION_EXAMPLES}` })
  .refine(
    (text) => parseDuration(text) !== undefined,
    problem(
      'is not a duration',
      `write a number and a unit (ms, s, m, h, d, w), e.g. ${DURATION_EXAMPLES}`,
    ),
  );

/** More skip entries than anyone writes by hand: a bound on what a fire is checked against. */
const MAX_SKIP_ENTRIES = 1000;

/** A calendar's name in `calendars.yaml`: what a `skip` entry that is not a date refers to. */
export const CALENDAR_NAME_PATTERN = /^[a-z][a-z0-9_-]{0,63}$/i;

const SKIP_DAYS_FIX = 'write a date as 2026-12-25, a range as 2026-12-20..2027-01-04';

/** Adds an issue when `text` is not a day or a range of days. */
function checkSkipDays(text: string, context: z.core.$RefinementCtx): void {
  const parsed = parseSkipDays(text);
  if (typeof parsed !== 'string') return;
  context.addIssue({
    code: 'custom',
    message: `${JSON.stringify(text)} ${parsed}`,
    params: { fix: SKIP_DAYS_FIX },
  });
}

/** A day or range (`2026-12-25`, `2026-12-20..2027-01-04`): what a calendar lists. */
export const skipDaysSchema = z
  .string({ error: 'expected a date (YYYY-MM-DD) or a range (YYYY-MM-DD..YYYY-MM-DD)' })
  .superRefine(checkSkipDays);

/**
 * A `skip` entry: days written in the definition, or a calendar's name (a string) that loading
 * replaces with the calendar itself (an object), so a loaded definition carries its dates.
 */
const skipEntrySchema = z.union([
  z
    .string({ error: 'expected a date, a range of dates, or the name of a calendar' })
    .superRefine((text, context) => {
      if (/^\d/.test(text)) {
        checkSkipDays(text, context);
      } else if (!CALENDAR_NAME_PATTERN.test(text)) {
        context.addIssue({
          code: 'custom',
          message: `${JSON.stringify(text)} is neither a date nor a calendar name`,
          params: {
            fix: `${SKIP_DAYS_FIX}, or name a calendar of calendars.yaml (letters, digits, - and _)`,
          },
        });
      }
    }),
  z.strictObject({
    calendar: z.string().regex(CALENDAR_NAME_PATTERN),
    days: z.array(skipDaysSchema).max(MAX_SKIP_ENTRIES),
  }),
]);

type SkipEntry = z.output<typeof skipEntrySchema>;

/** The shortest start deadline: a worker needs a moment to take a run from the queue. */
const MIN_START_DEADLINE_MS = 1000;

/** The greatest catch-up window: a scheduler down for longer than this records its fires as missed. */
const MAX_CATCH_UP_MS = 31 * 86_400_000;

const OVERLAP_POLICIES = ['skip', 'allow'] as const;
type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

const CRON_FIX =
  'write five fields (minute hour day-of-month month day-of-week), or six with seconds first, e.g. "0 1 * * *" or "*/10 * * * * *"';

/** The keys every kind's `schedule` has; `sla-window` adds `duration`. */
export const scheduleShape = {
  /** node-cron syntax, optionally with a leading seconds field. */
  cron: z.string({ error: 'expected a cron expression in quotes' }).min(1),
  /** IANA time zone the cron expression is read in; UTC by default. */
  timezone: z.string({ error: 'expected an IANA time zone name' }).min(1).default('UTC'),
  /** How late a missed fire may still be enqueued when a scheduler starts; 0 by default. */
  catchUp: durationSchema.default('0s'),
  /** What a fire does while the previous run of the same definition is still active. */
  overlap: z.enum(OVERLAP_POLICIES).default('skip'),
  /**
   * Days the schedule does not fire on, as local dates in `timezone`: `2026-12-25`,
   * `2026-12-20..2027-01-04`, or the name of a calendar in `calendars.yaml` (resolved at load).
   */
  skip: z.array(skipEntrySchema).max(MAX_SKIP_ENTRIES).optional(),
  /**
   * Each fire is run up to this much later than its time, by an amount fixed per fire (the same
   * on every replica): many definitions set to the same minute do not all start at once.
   */
  jitter: durationSchema.optional(),
  /** A scheduled run that has not started this long after its time is recorded as missed. */
  startDeadline: durationSchema.optional(),
  /**
   * Says that a schedule firing more than once a minute does so on purpose: without it, such a
   * schedule is refused (see checkFireRate).
   */
  allowSubMinute: z.boolean({ error: 'expected true or false' }).optional(),
};

export interface ScheduleFields {
  readonly cron: string;
  readonly timezone: string;
  readonly catchUp: string;
  readonly overlap: OverlapPolicy;
  readonly duration?: string | undefined;
  readonly skip?: readonly SkipEntry[] | undefined;
  readonly jitter?: string | undefined;
  readonly startDeadline?: string | undefined;
  readonly allowSubMinute?: boolean | undefined;
}

/**
 * The checks zod cannot express field by field: the cron expression parses, the zone exists,
 * the expression fires at all, the catch-up window is bounded. Returns the compiled schedule
 * for further checks, or `undefined` when it could not be built.
 */
export function checkSchedule(
  schedule: ScheduleFields,
  context: z.core.$RefinementCtx,
  now: Date = new Date(),
): CronSchedule | undefined {
  const path: PropertyKey[] = [];
  // Checks run even when other schedule keys are invalid (see `evenWithOtherProblems`), so each value is
  // read defensively.
  if (typeof schedule.cron !== 'string' || typeof schedule.timezone !== 'string') return undefined;
  const catchUpMs =
    typeof schedule.catchUp === 'string' ? parseDuration(schedule.catchUp) : undefined;
  if (catchUpMs !== undefined && catchUpMs > MAX_CATCH_UP_MS) {
    context.addIssue({
      code: 'custom',
      path: [...path, 'catchUp'],
      message: `${schedule.catchUp} is longer than the longest catch-up window (${formatDuration(MAX_CATCH_UP_MS)})`,
      params: { fix: `use ${formatDuration(MAX_CATCH_UP_MS)} or less` },
    });
  }

  let cronValid = true;
  try {
    parseCron(schedule.cron);
  } catch (error) {
    if (!(error instanceof CronSyntaxError)) throw error;
    cronValid = false;
    const neverOccurs = error.message.includes('never occurs');
    context.addIssue({
      code: 'custom',
      path: [...path, 'cron'],
      message: `${JSON.stringify(schedule.cron)}: ${error.message}${neverOccurs ? ', so it never fires' : ''}`,
      params: {
        fix: neverOccurs
          ? 'pick a day that exists in those months (e.g. "L" for the last day)'
          : (error.fix ?? CRON_FIX),
      },
    });
  }
  if (!isKnownTimeZone(schedule.timezone)) {
    const suggestion = suggestTimeZone(schedule.timezone);
    context.addIssue({
      code: 'custom',
      path: [...path, 'timezone'],
      message: `${JSON.stringify(schedule.timezone)} is not a known IANA time zone`,
      params: {
        fix:
          suggestion === undefined
            ? 'use an IANA name such as "Europe/Berlin", "America/New_York" or "UTC"'
            : `did you mean ${JSON.stringify(suggestion)}?`,
      },
    });
    return undefined;
  }
  if (!cronValid) return undefined;

  const compiled = CronSchedule.create(schedule.cron, schedule.timezone);
  checkFireRate(schedule, compiled, context, now);
  checkJitter(schedule, compiled, context, now);
  if (compiled.nextFire(now) === undefined) {
    context.addIssue({
      code: 'custom',
      path: [...path, 'cron'],
      message: `${JSON.stringify(schedule.cron)} never fires: no date in the next 100 years matches its day, month and weekday fields together`,
      params: {
        fix: 'day-of-month and day-of-week must both match (they are ANDed); relax one of them',
      },
    });
    return undefined;
  }
  return compiled;
}

/**
 * Jitter must keep fires in order (shorter than the shortest interval between two of them) and
 * leave time to start (shorter than `startDeadline`).
 */
function checkJitter(
  schedule: ScheduleFields,
  compiled: CronSchedule,
  context: z.core.$RefinementCtx,
  now: Date,
): void {
  const jitterMs = typeof schedule.jitter === 'string' ? parseDuration(schedule.jitter) : undefined;
  const deadlineMs =
    typeof schedule.startDeadline === 'string' ? parseDuration(schedule.startDeadline) : undefined;
  if (deadlineMs !== undefined && deadlineMs < MIN_START_DEADLINE_MS) {
    context.addIssue({
      code: 'custom',
      path: ['startDeadline'],
      message: `${schedule.startDeadline} leaves no time for a worker to take the run`,
      params: { fix: `give it ${formatDuration(MIN_START_DEADLINE_MS)} or more` },
    });
  }
  if (jitterMs === undefined || jitterMs === 0) return;
  const period = compiled.shortestInterval(now);
  if (period !== undefined && jitterMs >= period) {
    context.addIssue({
      code: 'custom',
      path: ['jitter'],
      message: `${schedule.jitter} is not shorter than the schedule's period (fires can be ${formatDuration(period)} apart), so fires would change order`,
      params: { fix: `use less than ${formatDuration(period)}` },
    });
  }
  if (deadlineMs !== undefined && jitterMs >= deadlineMs) {
    context.addIssue({
      code: 'custom',
      path: ['jitter'],
      message: `${schedule.jitter} is not shorter than startDeadline (${schedule.startDeadline})`,
      params: {
        fix: 'the deadline counts from the fire time: make it longer than the jitter',
      },
    });
  }
}

/**
 * A schedule that fires more than once a minute is refused unless it says `allowSubMinute:
 * true`. Six fields read seconds first, so `* * * * * *` (meant, most likely, as `* * * * *`)
 * fires every second: 86,400 runs a day, each with its record, its job and its platform calls,
 * which fill Redis within days. Firing that often on purpose (the demo does) is said in the
 * definition, where a reviewer sees it.
 */
function checkFireRate(
  schedule: ScheduleFields,
  compiled: CronSchedule,
  context: z.core.$RefinementCtx,
  now: Date,
): void {
  if (schedule.allowSubMinute === true) return;
  const shortest = compiled.shortestInterval(now);
  if (shortest === undefined || shortest >= MINUTE_MS) return;
  context.addIssue({
    code: 'custom',
    path: ['cron'],
    message:
      `${JSON.stringify(schedule.cron)} fires ${shortest === SECOND_MS ? 'every second' : `as often as every ${formatDuration(shortest)}`}: ` +
      'each fire is a run of its own (a record, a job, its platform calls)',
    params: {
      fix: 'with six fields the first is seconds: write five fields (minute hour day-of-month month day-of-week) to fire at most once a minute, e.g. "* * * * *"; to fire this often on purpose, add `allowSubMinute: true` to the schedule',
    },
  });
}

const SECOND_MS = 1_000;
const MINUTE_MS = 60_000;

/** The `schedule` of `snapshot` and `rotate-secret` definitions. */
export const scheduleSchema = z.strictObject(scheduleShape).superRefine((schedule, context) => {
  checkSchedule(schedule, context);
}, evenWithOtherProblems);
