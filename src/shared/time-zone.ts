import { closestMatch } from './closest-match.js';

/**
 * IANA time zones through `Intl` (no time-zone library: Node ships the tz database). Every
 * function takes and returns instants as epoch milliseconds or `Date`s; "wall clock" means the
 * local date and time a person in that zone reads.
 */

/** A local date and time in some zone, without any offset. */
export interface WallClock {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Whether `Intl` knows `timeZone` (an IANA name such as `Europe/Berlin`, or `UTC`). */
export function isKnownTimeZone(timeZone: string): boolean {
  if (timeZone.trim() === '') return false;
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The wall clock in `timeZone` at `instantMs`. */
export function wallClockAt(instantMs: number, timeZone: string): WallClock {
  const values: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(instantMs)) {
    if (part.type !== 'literal') values[part.type] = Number(part.value);
  }
  return {
    year: values['year'] ?? 0,
    month: values['month'] ?? 1,
    day: values['day'] ?? 1,
    // Some ICU versions print midnight as 24 even with h23.
    hour: (values['hour'] ?? 0) % 24,
    minute: values['minute'] ?? 0,
    second: values['second'] ?? 0,
  };
}

/** Milliseconds since the epoch of a wall clock read as if it were UTC ("naive" time). */
function naiveMs(wall: WallClock): number {
  return Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
}

/** The zone's UTC offset at `instantMs`, in milliseconds (wall clock minus UTC). */
export function offsetMsAt(instantMs: number, timeZone: string): number {
  const wholeSecond = Math.floor(instantMs / 1000) * 1000;
  return naiveMs(wallClockAt(wholeSecond, timeZone)) - wholeSecond;
}

/**
 * The first instant in `(fromMs, toMs]` at which the zone's offset differs from its offset at
 * `fromMs`, to the millisecond. The caller has seen the offsets at both ends differ.
 */
export function findOffsetChange(fromMs: number, toMs: number, timeZone: string): number {
  const before = offsetMsAt(fromMs, timeZone);
  let low = fromMs;
  let high = toMs;
  // Offsets only change on whole seconds, so searching seconds is exact and quicker.
  while (high - low > 1000) {
    const middle = low + Math.floor((high - low) / 2000) * 1000;
    if (offsetMsAt(middle, timeZone) === before) low = middle;
    else high = middle;
  }
  return high;
}

/** `2025-03-30 03:30:00 +02:00`: the wall clock in `timeZone` and its offset. */
export function formatInTimeZone(instant: Date, timeZone: string): string {
  const ms = instant.getTime();
  const wall = wallClockAt(ms, timeZone);
  const offsetMinutes = Math.round(offsetMsAt(ms, timeZone) / 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const absolute = Math.abs(offsetMinutes);
  const pad = (value: number, width = 2): string => String(value).padStart(width, '0');
  return (
    `${pad(wall.year, 4)}-${pad(wall.month)}-${pad(wall.day)} ` +
    `${pad(wall.hour)}:${pad(wall.minute)}:${pad(wall.second)} ` +
    `${sign}${pad(Math.floor(absolute / 60))}:${pad(absolute % 60)}`
  );
}

/** The known zone name closest to `timeZone` (for "did you mean"), if one is close enough. */
export function suggestTimeZone(timeZone: string): string | undefined {
  return closestMatch(timeZone, ['UTC', ...Intl.supportedValuesOf('timeZone')]);
}
