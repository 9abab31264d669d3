import { InvalidArgumentError } from 'commander';
import { DURATION_EXAMPLES, parseDuration } from '../shared/duration.js';

/**
 * Commander option parsers. Each throws commander's InvalidArgumentError, which commander turns
 * into `error: option '--x' argument 'y' is invalid. <message>` and paw into exit code 2.
 */

/**
 * A point in time: an ISO 8601 date or date-time (`2025-06-01`, `2025-06-01T01:00:00Z`), or a
 * duration meaning that long ago (`7d`, `12h`).
 */
export function parseTimeOption(text: string, now: Date = new Date()): Date {
  const ago = parseDuration(text);
  if (ago !== undefined) return new Date(now.getTime() - ago);
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    const ms = Date.parse(text);
    if (Number.isFinite(ms)) return new Date(ms);
  }
  throw new InvalidArgumentError(
    `Give an ISO 8601 time (2025-06-01 or 2025-06-01T01:00:00Z) or a duration ago (${DURATION_EXAMPLES}).`,
  );
}

/** {@link parseTimeOption}, as the ISO 8601 string the platform's filters take. */
export function isoTime(text: string): string {
  return parseTimeOption(text).toISOString();
}

/** A whole number of 1 or more. */
export function positiveInteger(text: string): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < 1) {
    throw new InvalidArgumentError('Give a whole number of 1 or more.');
  }
  return Number(text);
}

export function positiveSeconds(text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value <= 0) {
    throw new InvalidArgumentError('Give a number of seconds greater than 0.');
  }
  return value;
}

/** A duration such as `2h`. */
export function parseDurationOption(text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined)
    throw new InvalidArgumentError(`Give a duration such as ${DURATION_EXAMPLES}.`);
  return ms;
}

/** One of `values`, matched without regard to case. */
export function oneOf<T extends string>(values: readonly T[]): (text: string) => T {
  return (text) => {
    const match = values.find((value) => value.toLowerCase() === text.toLowerCase());
    if (match === undefined) throw new InvalidArgumentError(`Give one of ${values.join(', ')}.`);
    return match;
  };
}

/** A parser for a comma-separated list of `choices` (repeating the option adds to the list). */
export function choiceList<T extends string>(
  choices: readonly T[],
): (text: string, previous: T[] | undefined) => T[] {
  return (text, previous) => {
    const values = collect(text);
    for (const value of values) {
      if (!(choices as readonly string[]).includes(value)) {
        throw new InvalidArgumentError(`"${value}" is not one of ${choices.join(', ')}.`);
      }
    }
    return [...(previous ?? []), ...(values as T[])];
  };
}

/** Collects a repeatable option (`--role a --role b`), also splitting commas (`--role a,b`). */
export function collect(text: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...text
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== ''),
  ];
}

/** The examples block every command's help ends with. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;
}
