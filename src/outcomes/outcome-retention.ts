import type { Redis } from 'ioredis';
import type { Logger } from '../shared/logger.js';
import { OutcomeKeys, targetMember } from './outcome-keys.js';
import { storedTarget } from './outcome-records.js';
import { ITEM_STATUSES } from './outcome-status.js';
import { StoredItems } from './stored-items.js';

const DAY_MS = 86_400_000;
const RUNS_PER_BATCH = 50;

/**
 * The keys a job kind keeps for a run beside its records (a snapshot run's lanes), given the
 * run's id and fields: deleted with the run.
 */
export type RunAttachedKeys = (
  runId: string,
  run: Readonly<Record<string, string>>,
) => readonly string[];

/** What a trim removed. */
export interface TrimResult {
  readonly runs: number;
  readonly items: number;
}

/**
 * Deletes every run fired more than `retentionDays` before `now`, with its items and their index
 * entries. Safe to run on several replicas at once (each deletion is idempotent), though
 * {@link RetentionTrimmer} lets only one do it per interval.
 */
export async function trimOutcomes(
  redis: Redis,
  prefix: string,
  options: {
    readonly now: Date;
    readonly retentionDays: number;
    readonly attachedKeys?: RunAttachedKeys;
  },
): Promise<TrimResult> {
  const keys = new OutcomeKeys(prefix);
  const cutoff = options.now.getTime() - options.retentionDays * DAY_MS;
  let runs = 0;
  let items = 0;
  for (;;) {
    const runIds = await redis.zrange(
      keys.runs(),
      '-inf',
      `(${cutoff}`,
      'BYSCORE',
      'LIMIT',
      0,
      RUNS_PER_BATCH,
    );
    if (runIds.length === 0) break;
    for (const runId of runIds) {
      items += await deleteRun(redis, keys, runId, options.attachedKeys);
      runs++;
    }
  }
  return { runs, items };
}

/**
 * Items or index entries one trim command touches at most: Redis runs one command at a time, and
 * a command over a whole night would hold every other client (the night's workers, the
 * dashboard) while it runs.
 */
export const TRIM_BATCH = 500;

async function deleteRun(
  redis: Redis,
  keys: OutcomeKeys,
  runId: string,
  attachedKeys: RunAttachedKeys | undefined,
): Promise<number> {
  const run = await redis.hgetall(keys.run(runId));
  const definitionId = run['definitionId'];
  const names = new Map<string, string>();
  let items = 0;
  // Each step reads a page of items (packed or not: StoredItems) and removes them from their
  // targets' indexes, TRIM_BATCH entries per pipeline.
  for await (const page of new StoredItems(redis, keys).pages(runId, TRIM_BATCH)) {
    for (const slice of batches(page)) {
      const pipeline = redis.pipeline();
      for (const [itemKey, json] of slice) {
        items++;
        const stored = JSON.parse(json) as { tg?: unknown; tn?: unknown };
        const target = storedTarget(itemKey, stored);
        if (target === undefined) continue;
        pipeline.zrem(keys.target(target), targetMember(runId, itemKey, target));
        if (typeof stored.tn === 'string') names.set(stored.tn.toLowerCase(), target);
      }
      await pipeline.exec();
    }
  }

  // A name whose target has no records left no longer leads anywhere.
  for (const batch of batches([...names])) {
    const targets = batch.map(([, targetId]) => keys.target(targetId));
    const exists = redis.pipeline();
    for (const target of targets) exists.exists(target);
    const left = (await exists.exec()) ?? [];
    const orphaned = batch.filter((_, index) => left[index]?.[1] === 0);
    if (orphaned.length === 0) continue;
    const current = await redis.hmget(keys.targetNames(), ...orphaned.map(([name]) => name));
    const gone = orphaned
      .filter(([, targetId], index) => current[index] === targetId)
      .map(([name]) => name);
    if (gone.length > 0) await redis.hdel(keys.targetNames(), ...gone);
  }

  // The run's hashes and status sets go with UNLINK: Redis frees a large value on a thread of its
  // own, so a night's 10,000 entries cost its main thread nothing (a DEL frees them all in one
  // command; HDELs of 500 at a time cost it more in total, measured: BENCHMARKS.md).
  const transaction = redis.multi();
  transaction.unlink(
    keys.items(runId),
    keys.packed(runId),
    keys.packedIndex(runId),
    ...ITEM_STATUSES.map((status) => keys.itemsWithStatus(runId, status)),
  );
  const attached = attachedKeys?.(runId, run) ?? [];
  if (attached.length > 0) transaction.unlink(...attached);
  transaction.del(keys.run(runId));
  transaction.zrem(keys.runs(), runId);
  transaction.zrem(keys.unpacked(), runId);
  if (definitionId !== undefined) {
    transaction.zrem(keys.runsOf(definitionId), runId);
    transaction.zrem(keys.active(definitionId), runId);
  }
  await transaction.exec();
  return items;
}

/** `values` in slices of at most {@link TRIM_BATCH}. */
function batches<T>(values: readonly T[]): T[][] {
  const slices: T[][] = [];
  for (let start = 0; start < values.length; start += TRIM_BATCH)
    slices.push(values.slice(start, start + TRIM_BATCH));
  return slices;
}

export interface RetentionTrimmerOptions {
  readonly redis: Redis;
  readonly prefix: string;
  readonly retentionDays: number;
  readonly intervalMs: number;
  readonly logger: Logger;
  readonly clock?: () => Date;
  /** The keys job kinds keep for a run, deleted with it. */
  readonly attachedKeys?: RunAttachedKeys;
}

/**
 * Trims expired outcome records every `intervalMs` (and once at start). Replicas share the work
 * through a Redis lock held for one interval: whichever takes it trims, the others skip.
 */
export class RetentionTrimmer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly keys: OutcomeKeys;

  constructor(private readonly options: RetentionTrimmerOptions) {
    this.keys = new OutcomeKeys(options.prefix);
  }

  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => void this.trimOnce(), this.options.intervalMs);
    this.timer.unref();
    void this.trimOnce();
  }

  /** Stops the timer and waits for a trim in progress. */
  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Trims now if no replica did during this interval; resolves when done. */
  trimOnce(): Promise<void> {
    this.running ??= this.trim().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async trim(): Promise<void> {
    const { redis, logger } = this.options;
    try {
      const taken = await redis.set(
        this.keys.trimLock(),
        String(process.pid),
        'PX',
        this.options.intervalMs,
        'NX',
      );
      if (taken === null) return;
      const result = await trimOutcomes(redis, this.options.prefix, {
        now: (this.options.clock ?? (() => new Date()))(),
        retentionDays: this.options.retentionDays,
        ...(this.options.attachedKeys === undefined
          ? {}
          : { attachedKeys: this.options.attachedKeys }),
      });
      if (result.runs > 0) {
        logger.info(
          { ...result, retentionDays: this.options.retentionDays },
          'trimmed expired outcome records',
        );
      }
    } catch (error) {
      logger.warn({ err: error }, 'outcome trim failed; retrying at the next interval');
    }
  }
}
