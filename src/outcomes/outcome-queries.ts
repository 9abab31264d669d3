import type { Redis } from 'ioredis';
import { INDEXED_ITEM_STATUSES, OutcomeKeys, parseTargetMember } from './outcome-keys.js';
import { itemFromStored, runFromHash, type ItemRow, type RunRecord } from './outcome-records.js';
import type { ItemStatus, OutcomeStatus } from './outcome-status.js';
import { sortByBytes } from './packed-chunks.js';
import { StoredItems } from './stored-items.js';

/** Which runs to list. Times bound the fire time, both ends inclusive. */
export interface RunQuery {
  readonly definitionId?: string;
  readonly statuses?: readonly OutcomeStatus[];
  readonly since?: Date;
  readonly until?: Date;
  /** Most runs to return; all when absent. */
  readonly limit?: number;
  /** Newest fire first (the default) or oldest first. */
  readonly order?: 'newest-first' | 'oldest-first';
}

/** Which items to list: the filters combine with AND. Times bound the run's fire time. */
export interface ItemQuery {
  readonly definitionId?: string;
  readonly runId?: string;
  readonly statuses?: readonly ItemStatus[];
  /** A target id or name (names are matched case-insensitively). */
  readonly target?: string;
  readonly since?: Date;
  readonly until?: Date;
  readonly order?: 'newest-first' | 'oldest-first';
}

const PAGE = 200;
/** Items read per round trip when a run's items are read by key. */
const ITEM_BATCH = 500;

/**
 * Reading the outcome store: runs by definition, status and fire time; items by definition, run,
 * status, target and fire time, streamed a page at a time: an export of months of 100,000-item
 * runs holds a run's item keys at most, never its items.
 *
 * How each filter is served (see outcome-keys.ts): fire time and definition by sorted-set range;
 * a target by its own index; the final statuses but `succeeded` by the run's per-status sets
 * (INDEXED_ITEM_STATUSES); the rest by scanning each run's items.
 */
export class OutcomeQueries {
  readonly keys: OutcomeKeys;
  private readonly stored: StoredItems;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = new OutcomeKeys(prefix);
    this.stored = new StoredItems(redis, this.keys);
  }

  /** Runs matching `query`, newest first unless asked otherwise. */
  async listRuns(query: RunQuery = {}): Promise<RunRecord[]> {
    const runs: RunRecord[] = [];
    for await (const run of this.runs(query)) {
      runs.push(run);
      if (query.limit !== undefined && runs.length >= query.limit) break;
    }
    return runs;
  }

  /** Runs matching `query`, one page of Redis reads at a time. */
  async *runs(query: RunQuery = {}): AsyncGenerator<RunRecord> {
    const key =
      query.definitionId === undefined ? this.keys.runs() : this.keys.runsOf(query.definitionId);
    const newestFirst = query.order !== 'oldest-first';
    const low = query.since === undefined ? '-inf' : String(query.since.getTime());
    const high = query.until === undefined ? '+inf' : String(query.until.getTime());
    for (let offset = 0; ; offset += PAGE) {
      const runIds = newestFirst
        ? await this.redis.zrange(key, high, low, 'BYSCORE', 'REV', 'LIMIT', offset, PAGE)
        : await this.redis.zrange(key, low, high, 'BYSCORE', 'LIMIT', offset, PAGE);
      if (runIds.length === 0) return;
      for (const run of await this.getRuns(runIds)) {
        if (query.statuses !== undefined && !query.statuses.includes(run.status)) continue;
        yield run;
      }
      if (runIds.length < PAGE) return;
    }
  }

  /**
   * Items matching `query`: run by run (newest first unless asked otherwise), by item key (byte
   * order) within a run.
   */
  async *items(query: ItemQuery = {}): AsyncGenerator<ItemRow> {
    if (query.target !== undefined) {
      yield* this.itemsOfTarget(query.target, query);
      return;
    }
    // The statuses filter items, not runs (a failed item may belong to a run in any status).
    const runQuery: RunQuery = {
      ...(query.definitionId === undefined ? {} : { definitionId: query.definitionId }),
      ...(query.since === undefined ? {} : { since: query.since }),
      ...(query.until === undefined ? {} : { until: query.until }),
      ...(query.order === undefined ? {} : { order: query.order }),
    };
    const runs: AsyncIterable<RunRecord> =
      query.runId === undefined ? this.runs(runQuery) : this.singleRun(query.runId, query);
    for await (const run of runs) {
      yield* this.itemsOfRun(run, query.statuses);
    }
  }

  private async *singleRun(runId: string, query: ItemQuery): AsyncGenerator<RunRecord> {
    const [run] = await this.getRuns([runId]);
    if (run === undefined) return;
    if (query.definitionId !== undefined && run.definitionId !== query.definitionId) return;
    const fired = Date.parse(run.fireTime);
    if (query.since !== undefined && fired < query.since.getTime()) return;
    if (query.until !== undefined && fired > query.until.getTime()) return;
    yield run;
  }

  /** A run's items in `statuses` (all when undefined), by item key, a page at a time. */
  private async *itemsOfRun(
    run: RunRecord,
    statuses: readonly ItemStatus[] | undefined,
  ): AsyncGenerator<ItemRow> {
    if (statuses !== undefined && statuses.every(isIndexed)) {
      // Each of these statuses has its own set per run: read just those items.
      const itemKeys: string[] = [];
      for (const status of statuses) {
        itemKeys.push(...(await this.redis.smembers(this.keys.itemsWithStatus(run.runId, status))));
      }
      const sorted = sortByBytes([...new Set(itemKeys)]);
      for (let first = 0; first < sorted.length; first += ITEM_BATCH) {
        const batch = sorted.slice(first, first + ITEM_BATCH);
        const stored = await this.stored.get(run.runId, batch);
        for (const itemKey of batch) {
          const json = stored.get(itemKey);
          if (json !== undefined) yield row(run, itemKey, json);
        }
      }
      return;
    }
    for await (const page of this.stored.inKeyOrder(run.runId)) {
      for (const [itemKey, json] of page) {
        const item = row(run, itemKey, json);
        if (statuses === undefined || statuses.includes(item.status)) yield item;
      }
    }
  }

  private async *itemsOfTarget(target: string, query: ItemQuery): AsyncGenerator<ItemRow> {
    const targetId = await this.resolveTarget(target);
    if (targetId === undefined) return;
    const key = this.keys.target(targetId);
    const newestFirst = query.order !== 'oldest-first';
    const low = query.since === undefined ? '-inf' : String(query.since.getTime());
    const high = query.until === undefined ? '+inf' : String(query.until.getTime());
    for (let offset = 0; ; offset += PAGE) {
      const members = newestFirst
        ? await this.redis.zrange(key, high, low, 'BYSCORE', 'REV', 'LIMIT', offset, PAGE)
        : await this.redis.zrange(key, low, high, 'BYSCORE', 'LIMIT', offset, PAGE);
      if (members.length === 0) return;
      const pairs = members.map((member) => parseTargetMember(member, targetId));
      const runs = new Map(
        (await this.getRuns([...new Set(pairs.map((pair) => pair.runId))])).map((run) => [
          run.runId,
          run,
        ]),
      );
      const wanted = pairs.flatMap((pair) => {
        const run = runs.get(pair.runId);
        if (run === undefined) return [];
        if (query.definitionId !== undefined && run.definitionId !== query.definitionId) return [];
        if (query.runId !== undefined && run.runId !== query.runId) return [];
        return [{ ...pair, run }];
      });
      // One round trip for the page's items (90 nights of history is 90 of them).
      const wantedKeys = new Map<string, string[]>();
      for (const pair of wanted) {
        const keys = wantedKeys.get(pair.runId) ?? [];
        keys.push(pair.itemKey);
        wantedKeys.set(pair.runId, keys);
      }
      const stored = await this.stored.getAcross(wantedKeys);
      for (const pair of wanted) {
        const json = stored.get(pair.runId)?.get(pair.itemKey);
        if (json === undefined) continue;
        const item = row(pair.run, pair.itemKey, json);
        if (query.statuses !== undefined && !query.statuses.includes(item.status)) continue;
        yield item;
      }
      if (members.length < PAGE) return;
    }
  }

  /** A target id as given, or the id last recorded under that name. */
  private async resolveTarget(target: string): Promise<string | undefined> {
    if ((await this.redis.exists(this.keys.target(target))) === 1) return target;
    return (await this.redis.hget(this.keys.targetNames(), target.toLowerCase())) ?? undefined;
  }

  private async getRuns(runIds: readonly string[]): Promise<RunRecord[]> {
    if (runIds.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const runId of runIds) pipeline.hgetall(this.keys.run(runId));
    const replies = (await pipeline.exec()) ?? [];
    const runs: RunRecord[] = [];
    for (const [error, hash] of replies) {
      if (error !== null) throw error;
      const run = runFromHash(hash as Record<string, string>);
      if (run !== undefined) runs.push(run);
    }
    return runs;
  }
}

function isIndexed(status: ItemStatus): boolean {
  return (INDEXED_ITEM_STATUSES as readonly string[]).includes(status);
}

function row(run: RunRecord, itemKey: string, json: string): ItemRow {
  // Run fields first: this is the key order of listings and exports.
  const { runId, ...item } = itemFromStored(run.runId, itemKey, json);
  return {
    runId,
    definitionId: run.definitionId,
    kind: run.kind,
    fireTime: run.fireTime,
    trigger: run.trigger,
    ...item,
  };
}
