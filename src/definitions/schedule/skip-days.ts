import { wallClockAt } from '../../shared/time-zone.js';

/**
 * One day or an inclusive range of days a schedule does not fire on, written `2026-12-25` or
 * `2026-12-20..2027-01-04`: calendar dates, read in the definition's time zone.
 */
const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
const RANGE_SEPARATOR = '..';

/** A parsed day or range, with the text it came from. */
export interface SkipDayRange {
  /** `YYYY-MM-DD`, inclusive. ISO dates compare as strings, so no Date is needed. */
  readonly from: string;
  /** `YYYY-MM-DD`, inclusive; equal to `from` for a single day. */
  readonly to: string;
  readonly text: string;
}

/** Why a `skip` day text is not one (for the definition's error message), or the range. */
export function parseSkipDays(text: string): SkipDayRange | string {
  const parts = text.split(RANGE_SEPARATOR);
  if (parts.length > 2) return `has more than one "${RANGE_SEPARATOR}"`;
  const [from = '', to = from] = parts.map((part) => part.trim());
  for (const day of [from, to]) {
    const problem = dayProblem(day);
    if (problem !== undefined) return problem;
  }
  if (to < from) return `ends (${to}) before it starts (${from})`;
  return { from, to, text };
}

function dayProblem(day: string): string | undefined {
  const match = DAY_PATTERN.exec(day);
  if (match === null) return `${JSON.stringify(day)} is not a date written YYYY-MM-DD`;
  const [year, month, date] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const probe = new Date(Date.UTC(year, month - 1, date));
  if (probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== date) {
    return `${day} is not a day of the calendar`;
  }
  return undefined;
}

/** A named set of days (a calendar of `jobs/calendars.yaml`, or a definition's own dates). */
export interface SkipCalendar {
  /** The calendar's name; absent for dates written in the definition itself. */
  readonly name?: string;
  readonly days: readonly string[];
}

/** What removed a fire: the calendar (if named) and the day or range that matched. */
export interface SkipMatch {
  readonly calendar?: string;
  /** The local date of the fire, `YYYY-MM-DD`. */
  readonly localDate: string;
  /** The entry that matched, as written (`2026-12-20..2027-01-04`). */
  readonly days: string;
}

/**
 * The days a definition's schedule skips, evaluated in its time zone: a fire whose local
 * calendar date falls on a skipped day is removed, whatever its UTC date (a 00:30 fire in
 * Berlin is on the previous day in UTC). Pure: no clock, no I/O.
 */
export class SkipDays {
  private readonly ranges: readonly (SkipDayRange & { readonly calendar?: string })[];

  /** Throws a TypeError for a day that does not parse: definitions are checked before this. */
  constructor(
    calendars: readonly SkipCalendar[],
    private readonly timeZone: string,
  ) {
    this.ranges = calendars.flatMap((calendar) =>
      calendar.days.map((text) => {
        const range = parseSkipDays(text);
        if (typeof range === 'string') throw new TypeError(`skip day ${text}: ${range}`);
        return calendar.name === undefined ? range : { ...range, calendar: calendar.name };
      }),
    );
  }

  get isEmpty(): boolean {
    return this.ranges.length === 0;
  }

  /** The entry that removes a fire at `fireTime`, or `undefined` when it fires. */
  match(fireTime: Date): SkipMatch | undefined {
    if (this.ranges.length === 0) return undefined;
    const wall = wallClockAt(fireTime.getTime(), this.timeZone);
    const localDate = `${String(wall.year).padStart(4, '0')}-${pad2(wall.month)}-${pad2(wall.day)}`;
    for (const range of this.ranges) {
      if (localDate >= range.from && localDate <= range.to) {
        return {
          ...(range.calendar === undefined ? {} : { calendar: range.calendar }),
          localDate,
          days: range.text,
        };
      }
    }
    return undefined;
  }
}

function pad2(value: number): string {
  return String(value).padStart(2, '0');
}

function sourceOf(match: SkipMatch): string {
  return match.calendar === undefined ? 'schedule.skip' : `calendar ${match.calendar}`;
}

/** How a removed fire reads in its run's reason. */
export function describeSkipMatch(match: SkipMatch, timeZone: string): string {
  const span = match.days.includes(RANGE_SEPARATOR) ? ` (${match.days})` : '';
  return `${sourceOf(match)} skips ${match.localDate}${span}, a local date in ${timeZone}`;
}

/** The entry that removed fires, for a listing of several of them (`paw schedules`). */
export function describeSkipEntry(match: SkipMatch, timeZone: string): string {
  return `${sourceOf(match)}: ${match.days}, local dates in ${timeZone}`;
}
