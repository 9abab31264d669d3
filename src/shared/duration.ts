/**
 * Durations as people write them in job definitions and flags: `90s`, `15m`, `2h`, `1d`,
 * `1h30m`, `500ms`, `2w`, or `0`. One grammar everywhere, so `catchUp: 2h` and `--since 2h`
 * mean the same thing.
 */
const UNIT_MS = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
} as const;

type Unit = keyof typeof UNIT_MS;

const WHOLE = /^(?:\d+(?:ms|s|m|h|d|w))+$/;
const PART = /(\d+)(ms|s|m|h|d|w)/g;

/** Example values, for error messages. */
export const DURATION_EXAMPLES = '"90s", "15m", "2h", "1h30m", "1d"';

/** Milliseconds in `text`, or `undefined` when it is not a duration. */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '0') return 0;
  if (!WHOLE.test(trimmed)) return undefined;
  let total = 0;
  for (const match of trimmed.matchAll(PART)) {
    const amount = Number(match[1]);
    total += amount * UNIT_MS[match[2] as Unit];
  }
  return Number.isSafeInteger(total) ? total : undefined;
}

/** Milliseconds in `text`; throws when it is not a duration (for values already validated). */
export function durationMs(text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined) throw new Error(`not a duration: ${JSON.stringify(text)}`);
  return ms;
}

/** The shortest text that {@link parseDuration} reads back as `ms`: `5400000` → `1h30m`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(Math.round(ms));
  let out = '';
  for (const unit of ['d', 'h', 'm', 's', 'ms'] as const) {
    const size = UNIT_MS[unit];
    const amount = Math.floor(rest / size);
    if (amount > 0) {
      out += `${amount}${unit}`;
      rest -= amount * size;
    }
  }
  return sign + out;
}
