import { CronSchedule } from './schedule/cron-schedule.js';
import { describeSkipEntry } from './schedule/skip-days.js';
import type { ScheduleFields } from './schedule-schema.js';
import { skipDaysOf } from './schedule/definition-skip-days.js';

/**
 * How many cron times to look through for the next runs: a seconds-level schedule inside a
 * two-week freeze has over a million, and a listing must answer at once.
 */
export const MAX_TIMES_EXAMINED = 100_000;

/** Consecutive cron times a calendar removes, for one entry of `schedule.skip`. */
export interface SkippedFires {
  readonly first: Date;
  readonly last: Date;
  readonly count: number;
  /** The calendar and its days (`calendar change-freeze: 2026-12-20..2027-01-04, local dates in Europe/Berlin`). */
  readonly reason: string;
}

/** The next fires of a schedule, and the calendar-removed times before and between them. */
export interface UpcomingFires {
  /** The next fire times that will run (calendars applied), ascending. */
  readonly fires: readonly Date[];
  /** The removed times before the last of `fires`, grouped. */
  readonly skipped: readonly SkippedFires[];
  /** True when the search stopped at its bound before finding `count` fires. */
  readonly truncated: boolean;
}

/**
 * The next `count` fires of `schedule` after `after` that a calendar does not remove, and the
 * ones it removes on the way (what `paw schedules --count N` and the dashboard show).
 */
export function upcomingFires(schedule: ScheduleFields, after: Date, count: number): UpcomingFires {
  const skipDays = skipDaysOf(schedule);
  const fires: Date[] = [];
  const skipped: SkippedFires[] = [];
  let examined = 0;
  let groupFiresSeen = 0;
  if (count <= 0) return { fires, skipped, truncated: false };
  for (const fire of CronSchedule.create(schedule.cron, schedule.timezone).firesAfter(after)) {
    if (++examined > MAX_TIMES_EXAMINED) return { fires, skipped, truncated: true };
    const match = skipDays.match(fire);
    if (match === undefined) {
      fires.push(fire);
      if (fires.length >= count) break;
      continue;
    }
    const reason = describeSkipEntry(match, schedule.timezone);
    const previous = skipped.at(-1);
    // One group per stretch of removed times: a fire that runs, or another entry, starts a new one.
    if (previous !== undefined && previous.reason === reason && groupFiresSeen === fires.length) {
      skipped[skipped.length - 1] = { ...previous, last: fire, count: previous.count + 1 };
    } else {
      skipped.push({ first: fire, last: fire, count: 1, reason });
      groupFiresSeen = fires.length;
    }
  }
  return { fires, skipped, truncated: false };
}
