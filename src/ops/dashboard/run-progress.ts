import type { ItemRecord, RunRecord } from '../../outcomes/outcome-records.js';
import type { ItemSample } from '../../outcomes/run-items-reader.js';

const SECOND_MS = 1000;
/**
 * Most bars in one picture: a run gets the narrowest slices that keep it under this many, from
 * a second (a demo's run) to a minute (a run of an hour) and wider (a long night), never
 * thinner bars.
 */
const MAX_BUCKETS = 60;
const BUCKET_SECONDS = [
  1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14_400, 28_800, 86_400,
];

/** One time slice of a run's progress. Counts are items; ended ones by how they ended. */
export interface ProgressBucket {
  /** ISO: the slice's start (a whole multiple of the slice's width). */
  readonly at: string;
  readonly succeeded: number;
  /** Failed or timed out: what a retry would take again, with `canceled`. */
  readonly failed: number;
  /** Canceled or skipped. */
  readonly other: number;
  /** At the slice's end: items not started yet (paw had not sent them: workers busy, or the request budget spent). */
  readonly waiting: number;
  /** At the slice's end: items started and not ended (their platform jobs running). */
  readonly inFlight: number;
  /** 429s the platform answered during the slice (all of paw's requests, not only this run's). */
  readonly rateLimited: number;
}

/** A snapshot run's progress over time, as the dashboard draws it. */
export interface RunProgress {
  readonly start: string;
  /** The run's end, or now for a run still going. */
  readonly end: string;
  /** The width of a slice: each bar counts the items that ended in this many seconds. */
  readonly bucketSeconds: number;
  readonly buckets: readonly ProgressBucket[];
  readonly total: number;
  /** Items ended (the sum of the buckets' succeeded, failed and other). */
  readonly ended: number;
  readonly failed: number;
  readonly rateLimited: number;
  /** Set when a large run was drawn from part of its items, scaled to its exact counts. */
  readonly sampled?: { readonly read: number; readonly of: number };
}

type Category = 'succeeded' | 'failed' | 'other';

function categoryOf(item: ItemRecord): Category | undefined {
  switch (item.status) {
    case 'succeeded':
      return 'succeeded';
    case 'failed':
    case 'timed-out':
      return 'failed';
    case 'canceled':
    case 'skipped':
      return 'other';
    default:
      return undefined; // queued or running: not ended
  }
}

/**
 * Buckets a snapshot run's items by when they ended (their `finishedAt`), and counts at each
 * bucket's end those not started yet and those in flight. From a sample (a large run), each
 * series is scaled to the run's exact counts, so the totals still equal what the run says.
 *
 * `rateLimits` maps second start (ms) to the 429s of that second (RateLimitRecord).
 */
export function computeRunProgress(
  run: RunRecord,
  sample: ItemSample,
  rateLimits: ReadonlyMap<number, number>,
  now: Date,
): RunProgress {
  const startMs = Date.parse(run.startedAt ?? run.fireTime);
  let endMs = run.finishedAt === undefined ? now.getTime() : Date.parse(run.finishedAt);
  const ends = new Map<ItemRecord, number>();
  for (const item of sample.items) {
    if (categoryOf(item) === undefined) continue;
    // An item skipped at fan-out may carry no finishedAt: its last update is when it ended.
    const at = Date.parse(item.finishedAt ?? item.updatedAt);
    ends.set(item, at);
    if (run.finishedAt === undefined && at > endMs) endMs = at;
  }
  endMs = Math.max(endMs, startMs + SECOND_MS);

  const bucketSeconds =
    BUCKET_SECONDS.find((seconds) => {
      const width = seconds * SECOND_MS;
      return Math.ceil(endMs / width) - Math.floor(startMs / width) <= MAX_BUCKETS;
    }) ?? 86_400;
  const bucketMs = bucketSeconds * SECOND_MS;
  const first = Math.floor(startMs / bucketMs) * bucketMs;
  const count = Math.max(1, Math.ceil((endMs - first) / bucketMs));
  const indexOf = (ms: number): number =>
    Math.min(count - 1, Math.max(0, Math.floor((ms - first) / bucketMs)));

  const ended: Record<Category, number[]> = {
    succeeded: new Array<number>(count).fill(0),
    failed: new Array<number>(count).fill(0),
    other: new Array<number>(count).fill(0),
  };
  const started = new Array<number>(count).fill(0);
  for (const item of sample.items) {
    const category = categoryOf(item);
    const endAt = ends.get(item);
    if (category !== undefined && endAt !== undefined) ended[category][indexOf(endAt)]! += 1;
    const startAt = item.startedAt === undefined ? endAt : Date.parse(item.startedAt);
    if (startAt !== undefined) started[indexOf(startAt)]! += 1;
  }

  const { counts } = run;
  const exact: Record<Category, number> = {
    succeeded: counts.succeeded,
    failed: counts.failed + counts.timedOut,
    other: counts.canceled + counts.skipped,
  };
  const startedTotal = counts.total - counts.queued;
  if (!sample.complete) {
    // A category with no item in the sample ends like the others did.
    const shape = ended.succeeded.map(
      (value, index) => value + (ended.failed[index] ?? 0) + (ended.other[index] ?? 0),
    );
    for (const category of ['succeeded', 'failed', 'other'] as const) {
      if (sumOf(ended[category]) !== exact[category]) {
        ended[category] = scaleTo(ended[category], exact[category], shape);
      }
    }
    started.splice(0, count, ...scaleTo(started, startedTotal, shape));
  }

  const rateLimited = new Array<number>(count).fill(0);
  for (const [second, limited] of rateLimits) {
    if (second + SECOND_MS <= first || second >= first + count * bucketMs) continue;
    rateLimited[indexOf(second)]! += limited;
  }

  const buckets: ProgressBucket[] = [];
  let startedSoFar = 0;
  let endedSoFar = 0;
  for (let index = 0; index < count; index++) {
    const succeeded = ended.succeeded[index] ?? 0;
    const failed = ended.failed[index] ?? 0;
    const other = ended.other[index] ?? 0;
    startedSoFar += started[index] ?? 0;
    endedSoFar += succeeded + failed + other;
    buckets.push({
      at: new Date(first + index * bucketMs).toISOString(),
      succeeded,
      failed,
      other,
      waiting: Math.max(0, counts.total - startedSoFar),
      inFlight: Math.max(0, startedSoFar - endedSoFar),
      rateLimited: rateLimited[index] ?? 0,
    });
  }
  const sum = (pick: (bucket: ProgressBucket) => number): number =>
    buckets.reduce((total, bucket) => total + pick(bucket), 0);
  return {
    start: new Date(startMs).toISOString(),
    end: new Date(endMs).toISOString(),
    bucketSeconds,
    buckets,
    total: counts.total,
    ended: sum((bucket) => bucket.succeeded + bucket.failed + bucket.other),
    failed: sum((bucket) => bucket.failed),
    rateLimited: sum((bucket) => bucket.rateLimited),
    ...(sample.complete ? {} : { sampled: { read: sample.items.length, of: counts.total } }),
  };
}

/**
 * `values` scaled so they add up to `total`, each a whole number (largest remainders first):
 * the shape of a sample, the totals of the run.
 */
function scaleTo(values: readonly number[], total: number, fallback: readonly number[]): number[] {
  if (total <= 0) return values.map(() => 0);
  if (sumOf(values) === 0) {
    if (sumOf(fallback) > 0) return scaleTo(fallback, total, []);
    // Nothing says when they ended: at the end.
    return values.map((_, index) => (index === values.length - 1 ? total : 0));
  }
  const sum = sumOf(values);
  const exact = values.map((value) => (value * total) / sum);
  const scaled = exact.map(Math.floor);
  let left = total - scaled.reduce((a, b) => a + b, 0);
  const order = exact
    .map((value, index) => ({ index, remainder: value - Math.floor(value) }))
    .sort((a, b) => b.remainder - a.remainder);
  for (const { index } of order) {
    if (left <= 0) break;
    scaled[index]! += 1;
    left -= 1;
  }
  return scaled;
}

function sumOf(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
