import {
  findOffsetChange,
  isKnownTimeZone,
  offsetMsAt,
  wallClockAt,
} from '../../shared/time-zone.js';
import { matchesDay, parseCron, type CronFields } from './cron-expression.js';

const SECOND_MS = 1_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** No zone is ahead of UTC by more than 14 hours or behind it by more than 12. */
const MAX_OFFSET_AHEAD_MS = 14 * HOUR_MS;
const MAX_OFFSET_BEHIND_MS = 12 * HOUR_MS;
/** How far ahead to look for a fire before deciding there is none (as node-cron does). */
const FIRE_HORIZON_DAYS = 366 * 100;

/**
 * Schedules compiled so far, by zone and expression (oldest first). A definition's schedule is
 * compiled each time the definition is validated, and the run-job schema validates it at every
 * fire, so the same few are asked for again and again; a CronSchedule is immutable, so one
 * compiled schedule serves every caller.
 */
const compiled = new Map<string, CronSchedule>();
const MAX_COMPILED = 256;

/** `timeZone` is not an IANA zone `Intl` knows. */
export class UnknownTimeZoneError extends Error {
  override readonly name = 'UnknownTimeZoneError';
}

/**
 * When a cron expression fires in a time zone: the pure core of the scheduler. No clock, no
 * I/O: every method takes the instants it reasons about.
 *
 * Daylight-saving time follows RFC 5545 (iCalendar) and Temporal's `compatible` rule, so each
 * local time fires exactly once:
 * - a local time skipped when clocks go forward fires at the same distance from the change as
 *   it would have without it (02:30 on the night Berlin jumps from 02:00 to 03:00 fires at
 *   03:30 CEST, 01:30 UTC);
 * - a local time that occurs twice when clocks go back fires at its first occurrence (02:30
 *   CEST), and not again during the repeated hour.
 *
 * node-cron's own matcher differs on both (it skips the first and fires the second at its later
 * occurrence), which is why the scheduler uses node-cron only for its ticks.
 */
export class CronSchedule {
  /** Seconds since local midnight at which the expression's hour/minute/second fields match. */
  private readonly secondsOfDay: Int32Array;

  private constructor(
    readonly expression: string,
    readonly timeZone: string,
    private readonly fields: CronFields,
  ) {
    // Filled in place: `* * * * * *` has 86,400 entries, which cost five times as much pushed
    // into a plain array and copied. The fields are sorted, so the entries come out ascending.
    const { hours, minutes, seconds } = fields;
    this.secondsOfDay = new Int32Array(hours.length * minutes.length * seconds.length);
    let index = 0;
    for (const hour of hours) {
      for (const minute of minutes) {
        for (const second of seconds)
          this.secondsOfDay[index++] = hour * 3600 + minute * 60 + second;
      }
    }
  }

  /**
   * Parses `expression` for `timeZone`. Throws `CronSyntaxError` (from cron-expression.ts) or
   * {@link UnknownTimeZoneError}.
   */
  static create(expression: string, timeZone: string): CronSchedule {
    const key = `${timeZone} ${expression}`;
    const known = compiled.get(key);
    if (known !== undefined) return known;
    if (!isKnownTimeZone(timeZone)) {
      throw new UnknownTimeZoneError(`unknown time zone ${JSON.stringify(timeZone)}`);
    }
    const schedule = new CronSchedule(expression, timeZone, parseCron(expression));
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value ?? '');
    compiled.set(key, schedule);
    return schedule;
  }

  /**
   * Fire times strictly after `after`, ascending, up to and including `until` when given (else
   * until the consumer stops, or {@link FIRE_HORIZON_DAYS} have passed without a match).
   */
  *firesAfter(after: Date, until?: Date): Generator<Date, void, undefined> {
    const afterMs = after.getTime();
    const untilMs = until?.getTime() ?? Number.POSITIVE_INFINITY;
    const startWall = wallClockAt(afterMs, this.timeZone);
    // A day earlier: a local time on the previous calendar day can map past `after` (DST).
    const startDay = epochDay(startWall.year, startWall.month, startWall.day) - 1;

    // Fire times found but not yet yielded, ascending. A day's fire times can interleave with the
    // next day's only around a DST change near midnight, so each day's are held back until the
    // following day's earliest possible fire time is known.
    let pending: number[] = [];
    let head = 0;
    for (let day = startDay; day < startDay + FIRE_HORIZON_DAYS; day++) {
      const midnight = day * DAY_MS;
      if (midnight - MAX_OFFSET_AHEAD_MS > untilMs) break;
      if (head < pending.length) {
        const offsets = this.dayOffsets(midnight);
        const earliestOfDay = midnight - Math.max(offsets.before, offsets.after);
        while (head < pending.length && (pending[head] ?? 0) < earliestOfDay) {
          const fire = pending[head++] ?? 0;
          if (fire > untilMs) return;
          yield new Date(fire);
        }
      }
      const date = new Date(midnight);
      if (
        !matchesDay(this.fields, date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate())
      )
        continue;
      const fires = this.firesOnDay(midnight, afterMs);
      if (fires.length === 0) continue;
      pending = mergeAscending(pending.slice(head), fires);
      head = 0;
    }
    while (head < pending.length) {
      const fire = pending[head++] ?? 0;
      if (fire > untilMs) return;
      yield new Date(fire);
    }
  }

  /**
   * The first fire time strictly after `after`, or `undefined` if it never fires again: the first
   * of {@link firesAfter}, found without building any day's list of fire times (a schedule that
   * fires every second has 86,400 a day, and this runs whenever a definition is validated).
   */
  nextFire(after: Date): Date | undefined {
    const afterMs = after.getTime();
    const startWall = wallClockAt(afterMs, this.timeZone);
    // A day earlier: a local time on the previous calendar day can map past `after` (DST).
    const startDay = epochDay(startWall.year, startWall.month, startWall.day) - 1;
    let earliest: number | undefined;
    for (let day = startDay; day < startDay + FIRE_HORIZON_DAYS; day++) {
      const midnight = day * DAY_MS;
      // No fire of this local day, or of a later one, comes before its midnight in the zone
      // furthest ahead of UTC.
      if (earliest !== undefined && midnight - MAX_OFFSET_AHEAD_MS > earliest) break;
      const date = new Date(midnight);
      if (
        !matchesDay(this.fields, date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate())
      )
        continue;
      const first = this.firesOnDay(midnight, afterMs, 1)[0];
      if (first !== undefined && (earliest === undefined || first < earliest)) earliest = first;
    }
    return earliest === undefined ? undefined : new Date(earliest);
  }

  /** The next `count` fire times after `after`. */
  nextFires(after: Date, count: number): Date[] {
    const fires: Date[] = [];
    if (count <= 0) return fires;
    for (const fire of this.firesAfter(after)) {
      fires.push(fire);
      if (fires.length >= count) break;
    }
    return fires;
  }

  /** Fire times in `(after, until]`, ascending. */
  firesBetween(after: Date, until: Date): Date[] {
    return [...this.firesAfter(after, until)];
  }

  /**
   * The shortest interval between two consecutive fire times among the first `sampleFires` after
   * `after` (at most a year and a day of them, so DST changes are included), or `undefined` when
   * it fires fewer than twice in that span.
   */
  shortestInterval(after: Date, sampleFires = 1000): number | undefined {
    const until = new Date(after.getTime() + 367 * DAY_MS);
    let previous: number | undefined;
    let shortest: number | undefined;
    let seen = 0;
    for (const fire of this.firesAfter(after, until)) {
      const ms = fire.getTime();
      if (previous !== undefined) {
        const interval = ms - previous;
        if (shortest === undefined || interval < shortest) shortest = interval;
      }
      previous = ms;
      if (++seen >= sampleFires) break;
    }
    return shortest;
  }

  /**
   * The zone's offsets just before and just after local day `midnight` (naive milliseconds):
   * probed far enough out that every instant of that local day lies between the probes.
   */
  private dayOffsets(midnight: number): {
    before: number;
    after: number;
    beforeProbe: number;
    afterProbe: number;
  } {
    const beforeProbe = midnight - MAX_OFFSET_AHEAD_MS;
    const afterProbe = midnight + DAY_MS + MAX_OFFSET_BEHIND_MS;
    return {
      before: offsetMsAt(beforeProbe, this.timeZone),
      after: offsetMsAt(afterProbe, this.timeZone),
      beforeProbe,
      afterProbe,
    };
  }

  /**
   * The fire times on local day `midnight` (naive ms) strictly after `afterMs`, ascending, without
   * duplicates: the first `limit` of them when given.
   */
  private firesOnDay(
    midnight: number,
    afterMs: number,
    limit = Number.POSITIVE_INFINITY,
  ): number[] {
    const offsets = this.dayOffsets(midnight);
    if (offsets.before === offsets.after) {
      // One offset all day: fire times rise with the seconds of the day, so the first one after
      // `afterMs` is found by bisection rather than by listing the day.
      const first = this.firstSecondAfter((afterMs - midnight + offsets.before) / SECOND_MS);
      const end = Math.min(this.secondsOfDay.length, first + limit);
      const fires = new Array<number>(Math.max(0, end - first));
      for (let index = first; index < end; index++) {
        fires[index - first] =
          midnight + (this.secondsOfDay[index] ?? 0) * SECOND_MS - offsets.before;
      }
      return fires;
    }
    const fires = new Array<number>(this.secondsOfDay.length);
    // The offset changes near this day. Wall times before the change read with the old offset;
    // wall times in a gap (spring forward) also read with the old offset, which moves them
    // forward by the gap; wall times in an overlap (fall back) read with the old offset too,
    // which is their first occurrence. Everything later reads with the new offset.
    const change = findOffsetChange(offsets.beforeProbe, offsets.afterProbe, this.timeZone);
    const lastWallWithOldOffset = change + Math.max(offsets.before, offsets.after);
    for (let index = 0; index < this.secondsOfDay.length; index++) {
      const wall = midnight + (this.secondsOfDay[index] ?? 0) * SECOND_MS;
      fires[index] = wall < lastWallWithOldOffset ? wall - offsets.before : wall - offsets.after;
    }
    fires.sort((a, b) => a - b);
    return fires
      .filter((fire, index) => fire > afterMs && (index === 0 || fire !== fires[index - 1]))
      .slice(0, limit);
  }

  /** The index of the first entry of `secondsOfDay` greater than `second` (its length if none). */
  private firstSecondAfter(second: number): number {
    let low = 0;
    let high = this.secondsOfDay.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.secondsOfDay[middle] ?? 0) > second) high = middle;
      else low = middle + 1;
    }
    return low;
  }
}

/** Days since 1970-01-01 of a calendar date. */
function epochDay(year: number, month: number, day: number): number {
  return Math.floor(Date.UTC(year, month - 1, day) / DAY_MS);
}

/** Merges two ascending arrays into one, dropping duplicates. */
function mergeAscending(a: number[], b: number[]): number[] {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  if ((b[0] ?? 0) > (a[a.length - 1] ?? 0)) return a.concat(b);
  const merged: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const next =
      j >= b.length || (i < a.length && (a[i] ?? 0) <= (b[j] ?? 0)) ? (a[i++] ?? 0) : (b[j++] ?? 0);
    if (merged.length === 0 || merged[merged.length - 1] !== next) merged.push(next);
  }
  return merged;
}
