import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trimOutcomes } from '../../src/outcomes/outcome-retention.js';
import type { ItemRow, ItemUpdate } from '../../src/outcomes/outcome-records.js';
import { Outcomes } from '../../src/outcomes/outcomes.js';
import { PackingSweeper } from '../../src/outcomes/packing-sweeper.js';
import { MAX_PACKED_ITEM_BYTES } from '../../src/outcomes/packed-chunks.js';
import { RunPacker } from '../../src/outcomes/run-packer.js';
import { StoredItems } from '../../src/outcomes/stored-items.js';
import { RunItemsReader } from '../../src/outcomes/run-items-reader.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createNightlyRun } from '../testkit/nightly-run.js';
import { keysUnder } from '../testkit/redis-contents.js';
import { connectTestRedis, uniquePrefix } from '../testkit/redis-connection.js';

let redis: Redis;

beforeAll(() => {
  redis = connectTestRedis();
});

afterAll(async () => {
  await redis.quit();
});

const fired = new Date('2026-11-01T01:00:00Z');

/** A night's snapshot item as a worker leaves it; every 7th fails. */
function snapshotItem(index: number): ItemUpdate {
  const workload = `VirtualMachine:::${String(index).padStart(8, '0')}-3e1c-4b7e-9c1e-4f2b8d6a7c55`;
  const jobId = `CREATE_VSPHERE_SNAPSHOT_${workload}_c0ffee${index}:::0`;
  const failed = index % 7 === 0;
  return {
    status: failed ? 'failed' : 'succeeded',
    target: workload,
    targetName: `prod-vm-${index}`,
    targetType: 'VSPHERE_VM',
    action: 'snapshot',
    attempts: 1,
    platformJobId: jobId,
    startedAt: new Date(fired.getTime() + 5_000 + index),
    finishedAt: new Date(fired.getTime() + 600_000 + index),
    details: {
      trackedVia: 'job',
      platformStatus: failed ? 'FAILED' : 'SUCCEEDED',
      statusUrl: `https://rsc.example.com/api/rest/workloads/${workload}/snapshot-jobs/${encodeURIComponent(jobId)}`,
      triggersSent: 1,
    },
    ...(failed ? { errorCode: 'INTERNAL', errorMessage: `datastore busy (${index})` } : {}),
  };
}

function itemKeyOf(index: number): string {
  return snapshotItem(index).target as string;
}

/** A finished night of `count` items, recorded as workers record them. */
async function finishedNight(store: Outcomes, runId: string, count: number): Promise<void> {
  await createNightlyRun(store, runId, fired);
  await store.items.create(
    runId,
    Array.from({ length: count }, (_, index) => [itemKeyOf(index), { status: 'queued' }] as const),
  );
  for (let index = 0; index < count; index++) {
    await store.items.record(runId, itemKeyOf(index), snapshotItem(index), {
      finishRunIfLast: true,
    });
  }
}

/** Everything a reader can see of a run: its items through every reader, and its counts. */
async function everything(store: Outcomes, prefix: string, runId: string, count: number) {
  const rows: ItemRow[] = [];
  for await (const row of store.queries.items({ runId })) rows.push(row);
  const failed: ItemRow[] = [];
  for await (const row of store.queries.items({ runId, statuses: ['failed'] })) failed.push(row);
  const ofTarget: ItemRow[] = [];
  for await (const row of store.queries.items({ target: 'prod-vm-3' })) ofTarget.push(row);
  const reader = new RunItemsReader(redis, prefix);
  const sample = await reader.sample(runId, count + 10);
  const some = await reader.byKeys(runId, [itemKeyOf(1), 'no-such-item', itemKeyOf(count - 1)]);
  const one = await store.items.get(runId, itemKeyOf(5));
  const run = await store.runs.get(runId);
  return {
    rows,
    failed,
    ofTarget,
    sample: {
      ...sample,
      items: [...sample.items].sort((a, b) => (a.itemKey < b.itemKey ? -1 : 1)),
    },
    some,
    one,
    counts: run?.counts,
    status: run?.status,
  };
}

async function keyBytes(key: string): Promise<number> {
  return Number((await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')) ?? 0);
}

describe('packing an ended run', () => {
  it('keeps every item as every reader sees it, in a fraction of the memory', async () => {
    const prefix = uniquePrefix('pack');
    const store = new Outcomes(redis, prefix);
    const runId = 'nightly@pack';
    const count = 700;
    await finishedNight(store, runId, count);
    const before = await everything(store, prefix, runId, count);
    expect(before.rows).toHaveLength(count);
    expect(before.failed).toHaveLength(Math.ceil(count / 7));
    expect(before.status).toBe('failed');
    const hashBytes = await keyBytes(store.keys.items(runId));

    const packed = await new RunPacker(redis, store.keys).pack(runId);

    // Those that succeeded are packed, 128 keys' worth to a chunk; the failed stay at hand.
    const failed = Math.ceil(count / 7);
    expect(packed).toEqual({
      packed: true,
      items: count - failed,
      chunks: Math.ceil(count / 128),
      kept: failed,
    });
    expect(await redis.hlen(store.keys.items(runId))).toBe(failed);
    expect(await everything(store, prefix, runId, count)).toEqual(before);
    const packedBytes =
      (await keyBytes(store.keys.packed(runId))) +
      (await keyBytes(store.keys.packedIndex(runId))) +
      (await keyBytes(store.keys.items(runId)));
    // The items hash's ~800 bytes an item become ~100 for those packed.
    expect(packedBytes).toBeLessThan(hashBytes / 3);
    expect(await redis.exists(store.keys.packing(runId))).toBe(0);
    // Packed once: a second pack leaves it as it is.
    expect(await new RunPacker(redis, store.keys).pack(runId)).toEqual({
      packed: false,
      why: 'packed',
    });
  });

  it('leaves an item too large for a chunk in the hash, readable, so no chunk it writes is refused on reading', async () => {
    const prefix = uniquePrefix('pack-large');
    const store = new Outcomes(redis, prefix);
    const runId = 'nightly@large';
    await finishedNight(store, runId, 20);
    // A succeeded item with a reason larger than a chunk holds an item.
    const reason = `"quoted"\n${'x'.repeat(MAX_PACKED_ITEM_BYTES)}`;
    await store.items.record(runId, itemKeyOf(1), { status: 'succeeded', reason });
    const before = await everything(store, prefix, runId, 20);

    const packed = await new RunPacker(redis, store.keys).pack(runId);

    expect(packed).toMatchObject({ packed: true, items: 20 - 3 - 1, kept: 3 + 1 });
    expect(await redis.hexists(store.keys.items(runId), itemKeyOf(1))).toBe(1);
    expect(await everything(store, prefix, runId, 20)).toEqual(before);
    expect((await store.items.get(runId, itemKeyOf(1)))?.reason).toBe(reason);
  });

  it('leaves a run still running alone', async () => {
    const prefix = uniquePrefix('pack-active');
    const store = new Outcomes(redis, prefix);
    await createNightlyRun(store, 'nightly@active', fired);
    await store.items.record('nightly@active', 'wl-1', { status: 'running' });
    expect(await new RunPacker(redis, store.keys).pack('nightly@active')).toEqual({
      packed: false,
      why: 'active',
    });
    expect(await store.items.get('nightly@active', 'wl-1')).toMatchObject({ status: 'running' });
  });

  it('unpacks a run written to after it was packed, with its counters right, and packs it again', async () => {
    const prefix = uniquePrefix('pack-write');
    const store = new Outcomes(redis, prefix);
    const runId = 'nightly@late';
    await finishedNight(store, runId, 300);
    const packer = new RunPacker(redis, store.keys);
    expect((await packer.pack(runId)).packed).toBe(true);

    // A late write (a retried step) to an item that had failed, and a new item.
    await store.items.record(runId, itemKeyOf(7), {
      status: 'succeeded',
      errorCode: null,
      errorMessage: null,
    });
    await store.items.create(runId, [['late-item', { status: 'skipped', reason: 'late' }]]);

    expect(await redis.hget(store.keys.run(runId), 'packed')).toBeNull();
    const run = await store.runs.get(runId);
    expect(run?.counts).toMatchObject({ total: 301, failed: 42, succeeded: 258, skipped: 1 });
    expect(await store.items.get(runId, itemKeyOf(7))).toMatchObject({ status: 'succeeded' });
    expect(await store.items.get(runId, itemKeyOf(8))).toMatchObject(
      // The items not written to came back whole.
      {
        status: 'succeeded',
        targetName: 'prod-vm-8',
        platformJobId: snapshotItem(8).platformJobId,
      },
    );
    // Queued to be packed again.
    expect(await redis.zscore(store.keys.unpacked(), runId)).not.toBeNull();
    expect(await packer.pack(runId)).toMatchObject({ packed: true, items: 258, kept: 43 });
    expect(await store.items.get(runId, 'late-item')).toMatchObject({ status: 'skipped' });
  });

  it('never loses a write that races a pack', async () => {
    const prefix = uniquePrefix('pack-race');
    const store = new Outcomes(redis, prefix);
    const packer = new RunPacker(redis, store.keys);
    for (let round = 0; round < 8; round++) {
      const runId = `nightly@race-${round}`;
      await finishedNight(store, runId, 260);
      const [packed] = await Promise.all([
        packer.pack(runId),
        // Started with the pack, landing at some step of it (or before, or after).
        (async () => {
          for (let turn = 0; turn < round; turn++) await redis.ping();
          await store.items.record(runId, itemKeyOf(14), { status: 'succeeded', reason: 'rerun' });
        })(),
      ]);
      expect(await store.items.get(runId, itemKeyOf(14))).toMatchObject({
        status: 'succeeded',
        reason: 'rerun',
      });
      const rows: ItemRow[] = [];
      for await (const row of store.queries.items({ runId })) rows.push(row);
      expect(rows).toHaveLength(260);
      expect((await store.runs.get(runId))?.counts).toMatchObject({ total: 260, failed: 37 });
      // Whatever the order, the run ends up packed or queued to be packed again.
      const queued = await redis.zscore(store.keys.unpacked(), runId);
      const isPacked = await redis.hget(store.keys.run(runId), 'packed');
      expect(queued !== null || isPacked !== null).toBe(true);
      if (!packed.packed) expect(packed.why).toBe('lost');
    }
  });

  it('reads a run in key order a page at a time, each item once, though it is unpacked mid-read', async () => {
    const prefix = uniquePrefix('pack-order');
    const store = new Outcomes(redis, prefix);
    const runId = 'nightly@order';
    const count = 1300;
    await finishedNight(store, runId, count);
    const expected = Array.from({ length: count }, (_, index) => itemKeyOf(index)).sort();
    const stored = new StoredItems(redis, store.keys);
    const keysOf = async (): Promise<string[]> => {
      const keys: string[] = [];
      for await (const page of stored.inKeyOrder(runId)) keys.push(...page.map(([key]) => key));
      return keys;
    };
    // Not packed: read by key, a batch at a time.
    expect(await keysOf()).toEqual(expected);

    const packer = new RunPacker(redis, store.keys);
    expect((await packer.pack(runId)).packed).toBe(true);
    // Packed: the chunks merged with the failed items that stayed in the hash.
    expect(await keysOf()).toEqual(expected);
    const keys: string[] = [];
    let pages = 0;
    for await (const page of stored.inKeyOrder(runId)) {
      keys.push(...page.map(([key]) => key));
      // A late write unpacks the run after the first page was read.
      if (++pages === 1) await packer.unpack(runId);
    }
    expect(pages).toBeGreaterThan(2);
    expect(keys).toEqual(expected);
  });

  it('trims a packed run with every key and index entry', async () => {
    const prefix = uniquePrefix('pack-trim');
    const store = new Outcomes(redis, prefix);
    const runId = 'nightly@trimmed';
    await finishedNight(store, runId, 200);
    expect((await new RunPacker(redis, store.keys).pack(runId)).packed).toBe(true);

    expect(
      await trimOutcomes(redis, prefix, {
        now: new Date(fired.getTime() + 91 * 86_400_000),
        retentionDays: 90,
      }),
    ).toEqual({ runs: 1, items: 200 });
    // Only the coverage index stays (each workload's latest outcome outlives its runs).
    expect(await keysUnder(redis, prefix)).toEqual([`${prefix}:outcomes:coverage:nightly`]);
  });

  it('packs, on its timer, the runs that ended long enough ago, and those recorded before packing', async () => {
    const prefix = uniquePrefix('pack-sweep');
    const store = new Outcomes(redis, prefix);
    await finishedNight(store, 'nightly@a', 150);
    await finishedNight(store, 'nightly@b', 150);
    // Recorded by a version of paw that did not queue ended runs for packing.
    await redis.zrem(store.keys.unpacked(), 'nightly@b');
    const sweeper = new PackingSweeper({
      redis,
      prefix,
      packAfterMs: 0,
      logger: silentLogger(),
    });
    await sweeper.sweepOnce();
    await sweeper.stop();
    expect(await redis.hget(store.keys.run('nightly@a'), 'packed')).toBe('2');
    expect(await redis.hget(store.keys.run('nightly@b'), 'packed')).toBe('2');
    expect(await redis.zcard(store.keys.unpacked())).toBe(0);
  });
});
