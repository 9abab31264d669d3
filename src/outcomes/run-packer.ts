import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { luaScript } from '../redis/lua-file.js';
import type { OutcomeKeys } from './outcome-keys.js';
import {
  decodeChunk,
  encodeChunk,
  fitsChunk,
  ITEMS_PER_CHUNK,
  sortByBytes,
  type StoredItem,
} from './packed-chunks.js';

const beginPackScript = luaScript('outcomes/lua/packing/beginPack-2.lua');
const commitPackScript = luaScript('outcomes/lua/packing/commitPack-6.lua');
const abortPackScript = luaScript('outcomes/lua/packing/abortPack-4.lua');
const openRunScript = luaScript('outcomes/lua/packing/openRun-1.lua');
const restoreItemsScript = luaScript('outcomes/lua/packing/restoreItems-2.lua');
const finishRestoreScript = luaScript('outcomes/lua/packing/finishRestore-4.lua');

/** Items asked of Redis per HSCAN step while packing. */
const SCAN_COUNT = 1000;
/** Chunks read (HMGET of their items) and written per round trip while packing. */
const CHUNKS_PER_STEP = 8;
/** Items put back per script while unpacking. */
const RESTORE_BATCH = 500;
/** A pack this old was left by a packer that died: another may take it over. */
const STALE_PACK_MS = 10 * 60_000;

/** What became of a run asked to be packed. */
export type PackOutcome =
  | {
      readonly packed: true;
      /** Items packed (those that succeeded), in `chunks` chunks. */
      readonly items: number;
      readonly chunks: number;
      /** Items left in the items hash (those that did not succeed). */
      readonly kept: number;
    }
  | {
      readonly packed: false;
      /**
       * none: no such run; active: queued or running; packed: packed already; busy: another
       * packer is at it; lost: a write came in (the run stays queued to be packed).
       */
      readonly why: 'none' | 'active' | 'packed' | 'busy' | 'lost';
    };

/**
 * Packs a finished run's items: those that succeeded (nearly all, on most nights) leave the items
 * hash (one field per item, about 800 bytes each in Redis) for chunks of up to 128 items,
 * compressed (packed-chunks.ts), about 90 bytes per item, with the same information; 90 nights of
 * 10,000 items took 137 MiB of Redis instead of 676 (BENCHMARKS.md, "The outcome store over
 * months"). Those that did not succeed stay in the hash,
 * where the dashboard, notifications, retries and `--status failed` read a few of them at a time
 * without inflating a chunk each. The items of a run still being written stay in the hash, where
 * every write is a field update.
 *
 * Packing is safe beside any writer: `beginPack` marks the run, every script that writes its
 * items then refuses (`PAW_RUN_PACKED`), and a writer that meets the mark calls {@link unpack},
 * which calls off a pack in progress or puts the items back, then writes again
 * (ItemStore.writing). Readers go through StoredItems, which reads either layout.
 */
export class RunPacker {
  constructor(
    private readonly redis: Redis,
    private readonly keys: OutcomeKeys,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Packs the items of `runId` if it has ended and is not packed. */
  async pack(runId: string): Promise<PackOutcome> {
    const now = this.clock().getTime();
    const token = `${now}:${randomUUID()}`;
    const begun = String(
      await beginPackScript.run(
        this.redis,
        [this.keys.run(runId), this.keys.unpacked()],
        [runId, token, now, STALE_PACK_MS],
      ),
    );
    if (begun !== 'ok')
      return { packed: false, why: begun as 'none' | 'active' | 'packed' | 'busy' };
    try {
      const written = await this.writeChunks(runId);
      const committed =
        written === undefined
          ? 'lost'
          : String(
              await commitPackScript.run(
                this.redis,
                [
                  this.keys.run(runId),
                  this.keys.items(runId),
                  this.keys.packed(runId),
                  this.keys.packedIndex(runId),
                  this.keys.unpacked(),
                  this.keys.packing(runId),
                ],
                [runId, token, written.items, written.chunks, written.kept],
              ),
            );
      if (committed === 'ok' && written !== undefined) return { packed: true, ...written };
      await this.abort(runId, token);
      return { packed: false, why: 'lost' };
    } catch (error) {
      await this.abort(runId, token).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Makes a run's items writable: calls off a pack in progress, or puts a packed run's items back
   * in its items hash. The run is packed again once it has ended again (`<base>:unpacked`).
   */
  async unpack(runId: string): Promise<void> {
    const packed = String(await openRunScript.run(this.redis, [this.keys.run(runId)], []));
    if (packed === '') return;
    let cursor = '0';
    do {
      const [next, flat] = await this.redis.hscanBuffer(
        this.keys.packed(runId),
        cursor,
        'COUNT',
        CHUNKS_PER_STEP,
      );
      cursor = next.toString();
      const items: string[] = [];
      for (let index = 1; index < flat.length; index += 2) {
        const chunk = flat[index];
        if (chunk !== undefined)
          for (const [itemKey, json] of decodeChunk(chunk, runId)) items.push(itemKey, json);
      }
      for (let first = 0; first < items.length; first += 2 * RESTORE_BATCH) {
        const restored = await restoreItemsScript.run(
          this.redis,
          [this.keys.run(runId), this.keys.items(runId)],
          [packed, ...items.slice(first, first + 2 * RESTORE_BATCH)],
        );
        // Another unpack finished first, or the run was trimmed: nothing is left to do.
        if (Number(restored) === 0) return;
      }
    } while (cursor !== '0');
    await finishRestoreScript.run(
      this.redis,
      [
        this.keys.run(runId),
        this.keys.packed(runId),
        this.keys.packedIndex(runId),
        this.keys.unpacked(),
      ],
      [packed, runId, this.clock().getTime()],
    );
  }

  /**
   * Writes a run's items that succeeded as chunks, and gathers those that did not in a hash of
   * their own (neither yet in use: commitPack makes them so). Undefined when an item was gone by
   * the time its chunk was read (a writer called the pack off).
   */
  private async writeChunks(
    runId: string,
  ): Promise<
    { readonly items: number; readonly chunks: number; readonly kept: number } | undefined
  > {
    const itemKeys = sortByBytes(await this.itemKeys(runId));
    const packedKey = this.keys.packed(runId);
    const indexKey = this.keys.packedIndex(runId);
    const stayKey = this.keys.packing(runId);
    // Left by a pack that died before its commit or abort.
    await this.redis.unlink(packedKey, indexKey, stayKey);
    let packed = 0;
    let chunks = 0;
    let kept = 0;
    const groups: string[][] = [];
    for (let first = 0; first < itemKeys.length; first += ITEMS_PER_CHUNK) {
      groups.push(itemKeys.slice(first, first + ITEMS_PER_CHUNK));
    }
    for (let first = 0; first < groups.length; first += CHUNKS_PER_STEP) {
      const step = groups.slice(first, first + CHUNKS_PER_STEP);
      const reads = this.redis.pipeline();
      for (const keys of step) reads.hmget(this.keys.items(runId), ...keys);
      const replies = (await reads.exec()) ?? [];
      const writes = this.redis.pipeline();
      for (const [index, keys] of step.entries()) {
        const [error, values] = replies[index] ?? [null, []];
        if (error !== null) throw error;
        const jsons = values as (string | null)[];
        const chunk: StoredItem[] = [];
        const stay: string[] = [];
        for (const [at, key] of keys.entries()) {
          const json = jsons[at];
          if (json === null || json === undefined) return undefined;
          // An item too large for a chunk stays readable in the hash: a chunk is refused on
          // reading beyond what its items can be (packed-chunks.ts).
          if (succeeded(json) && fitsChunk(key, json)) chunk.push([key, json]);
          else stay.push(key, json);
        }
        if (chunk.length > 0) {
          const name = chunk[0]?.[0] ?? '';
          writes.hset(packedKey, name, encodeChunk(chunk));
          writes.zadd(indexKey, 0, name);
          packed += chunk.length;
          chunks++;
        }
        if (stay.length > 0) {
          writes.hset(stayKey, ...stay);
          kept += stay.length / 2;
        }
      }
      for (const [error] of (await writes.exec()) ?? []) if (error !== null) throw error;
    }
    return { items: packed, chunks, kept };
  }

  /** Every item key of a run's items hash (the values are read chunk by chunk afterwards). */
  private async itemKeys(runId: string): Promise<string[]> {
    const keys = new Set<string>();
    let cursor = '0';
    do {
      // As Buffers: the values, read only to be dropped, are never decoded into strings.
      const [next, flat] = await this.redis.hscanBuffer(
        this.keys.items(runId),
        cursor,
        'COUNT',
        SCAN_COUNT,
      );
      cursor = next.toString();
      // HSCAN may return a key twice.
      for (let index = 0; index < flat.length; index += 2) keys.add(flat[index]?.toString() ?? '');
    } while (cursor !== '0');
    return [...keys];
  }

  private async abort(runId: string, token: string): Promise<void> {
    await abortPackScript.run(
      this.redis,
      [
        this.keys.run(runId),
        this.keys.packed(runId),
        this.keys.packedIndex(runId),
        this.keys.packing(runId),
      ],
      [token],
    );
  }

  /**
   * Packs the runs that ended at least `afterMs` ago and are not packed yet, oldest first, until
   * none is left or `shouldStop` says so. Returns how many runs and items it packed.
   */
  async packEnded(
    afterMs: number,
    shouldStop: () => boolean = () => false,
  ): Promise<{ readonly runs: number; readonly items: number }> {
    let runs = 0;
    let items = 0;
    const busy = new Set<string>();
    while (!shouldStop()) {
      const due = await this.redis.zrangebyscore(
        this.keys.unpacked(),
        '-inf',
        this.clock().getTime() - afterMs,
        'LIMIT',
        0,
        busy.size + 20,
      );
      const next = due.filter((runId) => !busy.has(runId));
      if (next.length === 0) break;
      for (const runId of next) {
        if (shouldStop()) break;
        const outcome = await this.pack(runId);
        if (outcome.packed) {
          runs++;
          items += outcome.items;
        } else if (outcome.why === 'busy' || outcome.why === 'lost') {
          // Another packer's, or written to meanwhile: left for the next sweep.
          busy.add(runId);
        }
      }
    }
    return { runs, items };
  }
}

/** Whether an item's stored JSON says it succeeded (`st`: storedPatch in outcome-records.ts). */
function succeeded(json: string): boolean {
  return (JSON.parse(json) as { st?: unknown }).st === 'succeeded';
}
