/** What a field of a cron expression holds: its name and the values it ranges over. */
interface CronField {
  readonly label: string;
  /** The plural in a message: `a step of minutes`. */
  readonly unit: string;
  readonly first: number;
  readonly last: number;
  /** A step that fits, and what it gives. */
  readonly example: string;
}

const SECONDS: CronField = {
  label: 'second',
  unit: 'seconds',
  first: 0,
  last: 59,
  example: '*/15 fires at seconds 0, 15, 30 and 45',
};

/** The five fields of an expression, in order (a sixth, seconds, may come first). */
const FIELDS: readonly CronField[] = [
  {
    label: 'minute',
    unit: 'minutes',
    first: 0,
    last: 59,
    example: '*/15 fires at minutes 0, 15, 30 and 45',
  },
  {
    label: 'hour',
    unit: 'hours',
    first: 0,
    last: 23,
    example: '*/6 fires at hours 0, 6, 12 and 18',
  },
  {
    label: 'day-of-month',
    unit: 'days of the month',
    first: 1,
    last: 31,
    example: '*/10 fires on days 1, 11, 21 and 31',
  },
  {
    label: 'month',
    unit: 'months',
    first: 1,
    last: 12,
    example: '*/3 fires in months 1, 4, 7 and 10',
  },
  {
    label: 'day-of-week',
    unit: 'days of the week',
    first: 0,
    last: 6,
    example: '1-5/2 fires on Monday, Wednesday and Friday',
  },
];

/** A step that leaves its field: the message names the field, the fix a step that fits. */
export interface CronStepProblem {
  readonly message: string;
  readonly fix: string;
}

/**
 * The first step (`*∕n`, `a-b∕n`) longer than its field's span, or undefined. node-cron takes any
 * step, so `*∕60` in the minute field fires at minute 0 only and `*∕99999999999999999999` is
 * accepted without a word: what was meant (every hour? never?) is unclear, so it is refused. A
 * step counts within its field and never carries into the next one.
 */
export function cronStepProblem(expression: string): CronStepProblem | undefined {
  const parts = expression.trim().split(/\s+/);
  const fields = parts.length === 6 ? [SECONDS, ...FIELDS] : parts.length === 5 ? FIELDS : [];
  for (const [index, field] of fields.entries()) {
    for (const item of (parts[index] ?? '').split(',')) {
      const step = /\/(\d+)$/.exec(item)?.[1];
      if (step === undefined) continue;
      const span = field.last - field.first;
      // Compared as text first: a step of twenty digits is no safe number.
      if (step.length <= 3 && Number(step) >= 1 && Number(step) <= span) continue;
      if (Number(step) === 0) continue; // node-cron refuses it, naming the field
      return {
        message: `the ${field.label} field's step ${step} is out of range: a step of ${field.unit} is 1 to ${span}`,
        fix: `use a step from 1 to ${span} (${field.example}); a step counts within its field, so for a longer period set the next field instead`,
      };
    }
  }
  return undefined;
}
