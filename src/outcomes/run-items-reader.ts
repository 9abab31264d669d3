import type { Redis } from 'ioredis';
import { INDEXED_ITEM_STATUSES, OutcomeKeys } from './outcome-keys.js';
import { itemFromStored, type ItemRecord } from './outcome-records.js';
import type { ItemStatus } from './outcome-status.js';
import { StoredItems } from './stored-items.js';

/** Items asked of Redis per SSCAN step. */
const SCAN_COUNT = 1000;
/**
 * Items read at most to find those in a status without a set of its own (queued, running):
 * they are found by scanning the run's items, and a refresh must stay fast for any run.
 */
const MAX_SCANNED = 10_000;

/** Some of a run's items, and whether they are all of them. */
export interface ItemSample {
  readonly items: readonly ItemRecord[];
  /** True when every item of the run was read (no limit was reached). */
  readonly complete: boolean;
}

/**
 * Bounded reads of a run's items for the dashboard, which refreshes every few seconds and must
 * stay fast for a run of 100,000 items. OutcomeQueries streams a run's items whole (right for
 * exports); here every read stops at a limit, through the outcome store's own keys
 * (outcome-keys.ts), reader of items (StoredItems) and record format (`itemFromStored`),
 * read-only.
 */
export class RunItemsReader {
  private readonly keys: OutcomeKeys;
  private readonly stored: StoredItems;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = new OutcomeKeys(prefix);
    this.stored = new StoredItems(redis, this.keys);
  }

  /**
   * Up to `limit` items of `runId` in the given statuses (not `succeeded`: use {@link sample}),
   * in the order of `statuses`: read from the run's per-status sets where a status has one
   * (INDEXED_ITEM_STATUSES); the others (queued, running) are found among at most 10,000 of its
   * items, read once for all of them.
   */
  async withStatuses(
    runId: string,
    statuses: readonly ItemStatus[],
    limit: number,
  ): Promise<ItemRecord[]> {
    const found: ItemRecord[] = [];
    let scanned: readonly ItemRecord[] | undefined;
    for (const status of statuses) {
      const wanted = limit - found.length;
      if (wanted <= 0) break;
      if ((INDEXED_ITEM_STATUSES as readonly string[]).includes(status)) {
        found.push(...(await this.fromStatusSet(runId, status, wanted)));
        continue;
      }
      scanned ??= (await this.sample(runId, MAX_SCANNED)).items;
      found.push(...scanned.filter((item) => item.status === status).slice(0, wanted));
    }
    return found;
  }

  private async fromStatusSet(
    runId: string,
    status: ItemStatus,
    limit: number,
  ): Promise<ItemRecord[]> {
    const itemKeys = new Set<string>();
    let cursor = '0';
    do {
      const [next, members] = await this.redis.sscan(
        this.keys.itemsWithStatus(runId, status),
        cursor,
        'COUNT',
        SCAN_COUNT,
      );
      cursor = next;
      for (const member of members) {
        if (itemKeys.size >= limit) break;
        itemKeys.add(member);
      }
    } while (cursor !== '0' && itemKeys.size < limit);
    return this.byKeys(runId, [...itemKeys]);
  }

  /**
   * Up to `limit` items of `runId`, whatever their status, in the order they are stored (the
   * items hash's, or by key once packed: either unrelated to when they ended, so a partial read
   * is a fair sample of a large run).
   */
  async sample(runId: string, limit: number): Promise<ItemSample> {
    const items: ItemRecord[] = [];
    let leftOut = false;
    for await (const page of this.stored.pages(runId)) {
      for (const [itemKey, json] of page) {
        if (items.length >= limit) {
          leftOut = true;
          break;
        }
        items.push(itemFromStored(runId, itemKey, json));
      }
      if (leftOut) break;
    }
    return { items, complete: !leftOut };
  }

  /** The items of `runId` with these keys (keep the list bounded); absent ones left out. */
  async byKeys(runId: string, itemKeys: readonly string[]): Promise<ItemRecord[]> {
    if (itemKeys.length === 0) return [];
    const stored = await this.stored.get(runId, itemKeys);
    const items: ItemRecord[] = [];
    for (const itemKey of itemKeys) {
      const json = stored.get(itemKey);
      if (json !== undefined) items.push(itemFromStored(runId, itemKey, json));
    }
    return items;
  }
}
