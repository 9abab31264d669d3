import type { Redis } from 'ioredis';
import { luaScript } from '../redis/lua-file.js';
import type { OutcomeKeys } from './outcome-keys.js';
import { compareBytes, decodeChunk, sortByBytes, type StoredItem } from './packed-chunks.js';

const readItemsScript = luaScript('outcomes/lua/packing/readItems-4.lua');

/** Item keys per readItems call: the script's reply and its HMGET stay bounded. */
const READ_BATCH = 500;
/** Items asked of Redis per HSCAN step of a run not packed, unless the reader says otherwise. */
const SCAN_COUNT = 1000;
/** Chunks (up to 128 items each) asked of Redis per read of a packed run. */
const CHUNKS_PER_READ = 8;
/**
 * Times a whole-run read starts over when the run was packed or unpacked while it read: each
 * start skips what was read already, and packing a run twice in a read takes minutes.
 */
const LAYOUT_ATTEMPTS = 3;

/**
 * The one reader of a run's stored items (key layout: outcome-keys.ts), whether they are in the
 * items hash of a recent run or packed (src/outcomes/run-packer.ts): every reader of items (the
 * queries, the dashboard, the trim, ItemStore.get) reads through it, so none has to know which.
 * It answers stored JSON; `itemFromStored` (outcome-records.ts) makes records of it.
 */
export class StoredItems {
  constructor(
    private readonly redis: Redis,
    private readonly keys: OutcomeKeys,
  ) {}

  /** The stored JSON of these items of `runId`, by key; absent ones are left out. */
  async get(runId: string, itemKeys: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (let first = 0; first < itemKeys.length; first += READ_BATCH) {
      const batch = itemKeys.slice(first, first + READ_BATCH);
      const reply = (await readItemsScript.runForBuffers(
        this.redis,
        [
          this.keys.run(runId),
          this.keys.items(runId),
          this.keys.packed(runId),
          this.keys.packedIndex(runId),
        ],
        batch,
      )) as readonly (number | Buffer)[];
      readReply(runId, batch, reply, found);
    }
    return found;
  }

  /**
   * Items of several runs, in one round trip (a target's history: one item in each of 90 runs).
   * Answers, for each run asked, its items found.
   */
  getAcross(
    wanted: ReadonlyMap<string, readonly string[]>,
  ): Promise<Map<string, Map<string, string>>> {
    // Sent together, the calls share one round trip on the connection.
    return Promise.all(
      [...wanted].map(
        async ([runId, itemKeys]) => [runId, await this.get(runId, itemKeys)] as const,
      ),
    ).then((entries) => new Map(entries));
  }

  /**
   * Every item of `runId`, a page at a time (a page is at most a few thousand items): in the items
   * hash's order for a recent run; for a packed one, its chunks by key, then the items that stayed
   * in its hash. Each item comes once, even when the run is packed or unpacked while it is read. `scanCount`: the items asked of Redis per HSCAN
   * step of a run not packed.
   */
  async *pages(runId: string, scanCount = SCAN_COUNT): AsyncGenerator<StoredItem[]> {
    const seen = new Set<string>();
    const fresh = (items: readonly StoredItem[]): StoredItem[] =>
      items.filter(([itemKey]) => {
        if (seen.has(itemKey)) return false;
        seen.add(itemKey);
        return true;
      });
    for (let attempt = 0; attempt < LAYOUT_ATTEMPTS; attempt++) {
      const packed = await this.packedField(runId);
      // A packed run's items that did not succeed stay in its items hash.
      const reads =
        packed === null
          ? [this.scanItems(runId, scanCount)]
          : [this.readChunks(runId), this.scanItems(runId, scanCount)];
      for (const read of reads) {
        for await (const page of read) {
          const unseen = fresh(page);
          if (unseen.length > 0) yield unseen;
        }
      }
      // Read whole in one layout: nothing was missed.
      if ((await this.packedField(runId)) === packed) return;
    }
  }

  /**
   * Every item of `runId` in byte order of their keys, a page at a time, never the whole run in
   * memory (an export of a 100,000-item run): a packed run's chunks are in that order already
   * (merged with the items that stayed in its hash); the items hash of a run not packed is read
   * for its keys first, then in order, a batch at a time.
   */
  async *inKeyOrder(runId: string): AsyncGenerator<StoredItem[]> {
    let after: string | undefined;
    if ((await this.packedField(runId)) !== null) {
      const read = { complete: true };
      for await (const page of this.packedInKeyOrder(runId, read)) {
        const last = page.at(-1);
        if (last !== undefined) after = last[0];
        yield page;
      }
      if (read.complete) return;
    }
    // Not packed, or unpacked while read: the rest by key, from whichever layout holds it.
    const itemKeys: string[] = [];
    for await (const page of this.pages(runId)) {
      for (const [itemKey] of page) {
        if (after === undefined || compareBytes(itemKey, after) > 0) itemKeys.push(itemKey);
      }
    }
    yield* this.byKeyInBatches(runId, sortByBytes(itemKeys));
  }

  /**
   * A packed run's items by key: its chunks (in order already) merged with the items that stayed
   * in its hash (their keys sorted, their values read as the merge reaches them).
   */
  private async *packedInKeyOrder(
    runId: string,
    read: { complete: boolean },
  ): AsyncGenerator<StoredItem[]> {
    const stayed: string[] = [];
    for await (const page of this.scanItems(runId, SCAN_COUNT)) {
      for (const [itemKey] of page) stayed.push(itemKey);
    }
    const keys = sortByBytes([...new Set(stayed)]);
    let next = 0;
    for await (const chunk of this.readChunks(runId, read)) {
      const last = chunk.at(-1)?.[0];
      let end = next;
      while (end < keys.length && last !== undefined && compareBytes(keys[end] ?? '', last) < 0) {
        end++;
      }
      const between: StoredItem[] = [];
      for await (const page of this.byKeyInBatches(runId, keys.slice(next, end))) {
        between.push(...page);
      }
      next = end;
      yield mergeByKey(chunk, between);
    }
    if (!read.complete) return;
    yield* this.byKeyInBatches(runId, keys.slice(next));
  }

  /** The items of these keys, in their order, {@link READ_BATCH} at a time; absent ones left out. */
  private async *byKeyInBatches(
    runId: string,
    sorted: readonly string[],
  ): AsyncGenerator<StoredItem[]> {
    for (let first = 0; first < sorted.length; first += READ_BATCH) {
      const batch = sorted.slice(first, first + READ_BATCH);
      const found = await this.get(runId, batch);
      const page: StoredItem[] = [];
      for (const itemKey of batch) {
        const json = found.get(itemKey);
        if (json !== undefined) page.push([itemKey, json]);
      }
      yield page;
    }
  }

  private packedField(runId: string): Promise<string | null> {
    return this.redis.hget(this.keys.run(runId), 'packed');
  }

  private async *scanItems(runId: string, scanCount: number): AsyncGenerator<StoredItem[]> {
    let cursor = '0';
    do {
      const [next, flat] = await this.redis.hscan(
        this.keys.items(runId),
        cursor,
        'COUNT',
        scanCount,
      );
      cursor = next;
      const page: StoredItem[] = [];
      for (let index = 0; index + 1 < flat.length; index += 2) {
        page.push([flat[index] ?? '', flat[index + 1] ?? '{}']);
      }
      yield page;
    } while (cursor !== '0');
  }

  /** A packed run's chunks in order; `read.complete` false when it was unpacked meanwhile. */
  private async *readChunks(
    runId: string,
    read: { complete: boolean } = { complete: true },
  ): AsyncGenerator<StoredItem[]> {
    const names = await this.redis.zrange(this.keys.packedIndex(runId), '0', '-1');
    for (let first = 0; first < names.length; first += CHUNKS_PER_READ) {
      const chunks = await this.redis.hmgetBuffer(
        this.keys.packed(runId),
        ...names.slice(first, first + CHUNKS_PER_READ),
      );
      for (const chunk of chunks) {
        if (chunk === null) {
          read.complete = false;
          return;
        }
        yield decodeChunk(chunk, runId);
      }
    }
    // No chunk at all: the run was unpacked before its index was read.
    if (names.length === 0) read.complete = false;
  }
}

/** Two lists of items, each in byte order of their keys, as one in that order. */
function mergeByKey(a: readonly StoredItem[], b: readonly StoredItem[]): StoredItem[] {
  if (b.length === 0) return [...a];
  const merged: StoredItem[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const left = a[i];
    const right = b[j];
    if (right === undefined || (left !== undefined && compareBytes(left[0], right[0]) <= 0)) {
      if (left !== undefined) merged.push(left);
      i++;
    } else {
      merged.push(right);
      j++;
    }
  }
  return merged;
}

/** Adds to `found` the items of `itemKeys` in readItems-4.lua's reply. */
function readReply(
  runId: string,
  itemKeys: readonly string[],
  reply: readonly (number | Buffer)[],
  found: Map<string, string>,
): void {
  const count = itemKeys.length;
  itemKeys.forEach((itemKey, index) => {
    const value = reply[index + 1];
    if (Buffer.isBuffer(value) && value.length > 0) found.set(itemKey, value.toString('utf8'));
  });
  if (Number(reply[0]) === 0) return;
  // Packed: the chunks that may hold the items not found in the hash.
  const chunks = new Map<number, Map<string, string>>();
  const chunk = (number: number): Map<string, string> => {
    let items = chunks.get(number);
    if (items === undefined) {
      const value = reply[2 * count + number];
      items = new Map(Buffer.isBuffer(value) && value.length > 0 ? decodeChunk(value, runId) : []);
      chunks.set(number, items);
    }
    return items;
  };
  itemKeys.forEach((itemKey, index) => {
    const number = Number(reply[count + index + 1]);
    if (number === 0) return;
    const json = chunk(number).get(itemKey);
    if (json !== undefined) found.set(itemKey, json);
  });
}
