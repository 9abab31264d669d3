import { validateDetailed } from 'node-cron';
import { cronStepProblem } from './cron-steps.js';

/**
 * A cron expression in node-cron's dialect (five fields, or six with seconds first), parsed by
 * node-cron itself so that paw accepts exactly what node-cron accepts. Day-of-month and
 * day-of-week are combined with AND, as in node-cron (Vixie cron uses OR).
 */
export interface CronFields {
  readonly seconds: readonly number[];
  readonly minutes: readonly number[];
  readonly hours: readonly number[];
  /** Numbers 1-31, or `L`, `L-n`, `nW`, `LW`. */
  readonly daysOfMonth: readonly (number | string)[];
  readonly months: readonly number[];
  /** Numbers 0-6 (Sunday is 0), or `n#k` (k-th weekday n), `nL` (last weekday n of the month). */
  readonly daysOfWeek: readonly (number | string)[];
}

const FIELD_LABELS: Record<string, string> = {
  second: 'second',
  minute: 'minute',
  hour: 'hour',
  dayOfMonth: 'day-of-month',
  month: 'month',
  dayOfWeek: 'day-of-week',
};

/**
 * A cron expression node-cron rejects, or paw does (a step out of its field); the message names
 * the field and the bad value, `fix` what to write instead where there is more to say than the
 * syntax.
 */
export class CronSyntaxError extends Error {
  override readonly name = 'CronSyntaxError';

  constructor(
    message: string,
    readonly fix?: string,
  ) {
    super(message);
  }
}

/** Parses `expression`; throws {@link CronSyntaxError} naming the field that is wrong. */
export function parseCron(expression: string): CronFields {
  const step = cronStepProblem(expression);
  if (step !== undefined) throw new CronSyntaxError(step.message, step.fix);
  const result = validateDetailed(expression);
  if (!result.valid || result.fields === undefined) {
    const messages = result.errors.map((error) => {
      const label = FIELD_LABELS[error.field];
      if (label === undefined) return error.message;
      if (error.message.includes('impossible day of month')) {
        return `day-of-month ${JSON.stringify(error.value ?? '')} never occurs in the months given`;
      }
      return `the ${label} field ${JSON.stringify(error.value ?? '')} is not valid`;
    });
    throw new CronSyntaxError(messages.join('; ') || 'not a cron expression');
  }
  const fields = result.fields;
  return {
    seconds: sortedNumbers(fields.second),
    minutes: sortedNumbers(fields.minute),
    hours: sortedNumbers(fields.hour),
    daysOfMonth: fields.dayOfMonth,
    months: sortedNumbers(fields.month),
    daysOfWeek: fields.dayOfWeek,
  };
}

function sortedNumbers(values: readonly number[]): number[] {
  return [...new Set(values)].sort((a, b) => a - b);
}

/** Whether the calendar day `year-month-day` (month 1-12) matches the expression's day fields. */
export function matchesDay(fields: CronFields, year: number, month: number, day: number): boolean {
  if (!fields.months.includes(month)) return false;
  if (!matchesDayOfMonth(fields.daysOfMonth, year, month, day)) return false;
  const weekday = new Date(Date.UTC(year, month - 1, day)).getUTCDay();
  return matchesDayOfWeek(fields.daysOfWeek, year, month, day, weekday);
}

function lastDayOfMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The weekday (Monday-Friday) nearest to `target`, not crossing the month; -1 if none. */
function nearestWeekday(year: number, month: number, target: number): number {
  const last = lastDayOfMonth(year, month);
  if (target < 1 || target > last) return -1;
  const weekday = new Date(Date.UTC(year, month - 1, target)).getUTCDay();
  if (weekday === 6) return target === 1 ? target + 2 : target - 1;
  if (weekday === 0) return target === last ? target - 2 : target + 1;
  return target;
}

const NEAREST_WEEKDAY = /^(\d{1,2}|L)W$/;
const LAST_DAY_OFFSET = /^L-(\d{1,2})$/;

function matchesDayOfMonth(
  tokens: readonly (number | string)[],
  year: number,
  month: number,
  day: number,
): boolean {
  for (const token of tokens) {
    if (token === day) return true;
    if (typeof token !== 'string') continue;
    if (token === 'L' && day === lastDayOfMonth(year, month)) return true;
    const nearest = NEAREST_WEEKDAY.exec(token);
    if (nearest !== null) {
      const target =
        nearest[1] === 'L' ? lastDayOfMonth(year, month) : Number.parseInt(nearest[1] ?? '', 10);
      if (nearestWeekday(year, month, target) === day) return true;
    }
    const offset = LAST_DAY_OFFSET.exec(token);
    if (offset !== null) {
      const target = lastDayOfMonth(year, month) - Number.parseInt(offset[1] ?? '', 10);
      if (target >= 1 && target === day) return true;
    }
  }
  return false;
}

const NTH_WEEKDAY = /^([0-7])#([1-5])$/;
const LAST_WEEKDAY = /^([0-7])L$/i;

function matchesDayOfWeek(
  tokens: readonly (number | string)[],
  year: number,
  month: number,
  day: number,
  weekday: number,
): boolean {
  for (const token of tokens) {
    if (token === weekday) return true;
    if (typeof token !== 'string') continue;
    const nth = NTH_WEEKDAY.exec(token);
    if (nth !== null) {
      const wanted = Number.parseInt(nth[1] ?? '', 10) % 7;
      const occurrence = Math.floor((day - 1) / 7) + 1;
      if (wanted === weekday && occurrence === Number.parseInt(nth[2] ?? '', 10)) return true;
      continue;
    }
    const last = LAST_WEEKDAY.exec(token);
    if (last !== null) {
      const wanted = Number.parseInt(last[1] ?? '', 10) % 7;
      if (wanted === weekday && day + 7 > lastDayOfMonth(year, month)) return true;
    }
  }
  return false;
}
