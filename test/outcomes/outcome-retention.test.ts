import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/shared/logger.js';
import { OutcomeQueries } from '../../src/outcomes/outcome-queries.js';
import {
  RetentionTrimmer,
  TRIM_BATCH,
  trimOutcomes,
} from '../../src/outcomes/outcome-retention.js';
import { Outcomes } from '../../src/outcomes/outcomes.js';
import { startPrivateRedisServer } from '../../src/redis/private-redis-server.js';
import { connectTestRedis, uniquePrefix } from '../testkit/redis-connection.js';
import { keysUnder } from '../testkit/redis-contents.js';
import { createNightlyRun } from '../testkit/nightly-run.js';

let redis: Redis;

beforeAll(() => {
  redis = connectTestRedis();
});

afterAll(async () => {
  await redis.quit();
});

const DAY = 86_400_000;
const now = new Date('2025-09-01T12:00:00Z');

async function runWithItems(
  store: Outcomes,
  runId: string,
  fireTime: Date,
  items: number,
): Promise<void> {
  await createNightlyRun(store, runId, fireTime);
  for (let index = 0; index < items; index++) {
    await store.items.record(runId, `wl-${index}`, {
      status: index % 3 === 0 ? 'failed' : 'succeeded',
      target: `wl-${index}`,
      targetName: `vm-${index}`,
    });
  }
}

describe('outcome retention', () => {
  it('deletes a night in commands of at most TRIM_BATCH items each, freeing it off the main thread', async () => {
    // A Redis of its own: on the shared one, other files' commands reach MONITOR's connection in
    // the same read as its OK, before ioredis has switched it to monitoring, and ioredis fails
    // with "Command queue state error" (seen with three test workers at once).
    const server = await startPrivateRedisServer();
    const ownRedis = new Redis(server.url);
    try {
      await trimsInBatches(ownRedis);
    } finally {
      await ownRedis.quit();
      await server.stop();
    }
  });

  async function trimsInBatches(redis: Redis): Promise<void> {
    const prefix = uniquePrefix('trim-batches');
    const store = new Outcomes(redis, prefix);
    const runId = 'nightly@old';
    const items = 2 * TRIM_BATCH + 200;
    await store.runs.create({
      runId,
      definitionId: 'nightly',
      kind: 'snapshot',
      fireTime: new Date(now.getTime() - 91 * DAY),
      trigger: 'cron',
      status: 'queued',
    });
    // A bad night: every item failed, so its failed set is as large as its items.
    await store.items.create(
      runId,
      Array.from({ length: items }, (_, index) => [
        `wl-${index}`,
        { status: 'failed', target: `wl-${index}`, targetName: `vm-${index}` },
      ]),
    );

    // Every command the trim sends, as Redis sees it (MONITOR), for this test's keys.
    const monitor = await redis.monitor();
    const commands: string[][] = [];
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args.some((arg) => arg.startsWith(prefix))) commands.push(args);
    });
    expect(await trimOutcomes(redis, prefix, { now, retentionDays: 90 })).toEqual({
      runs: 1,
      items,
    });
    monitor.disconnect();
    // Only the coverage index stays: each workload's latest outcome outlives the runs it came
    // from (a run trims it to the workloads its definition covers).
    expect(await keysUnder(redis, prefix)).toEqual([`${prefix}:outcomes:coverage:nightly`]);

    const itemsKey = `${prefix}:outcomes:items:${runId}`;
    const failedKey = `${itemsKey}:failed`;
    const on = (key: string) =>
      commands.filter((args) => args.slice(1).includes(key)).map(([name]) => name?.toLowerCase());
    // The night's hash and its failed set are each 1,200 entries: no command frees them on
    // Redis's main thread (DEL), UNLINK hands them to its own thread.
    expect(on(itemsKey)).not.toContain('del');
    expect(on(itemsKey)).toContain('unlink');
    expect(on(failedKey)).toEqual(['unlink']);
    // Items are read and taken out of their indexes a batch at a time.
    const scans = commands.filter(([name]) => name?.toLowerCase() === 'hscan');
    expect(scans.length).toBeGreaterThanOrEqual(items / TRIM_BATCH);
    for (const scan of scans) expect(Number(scan[4])).toBeLessThanOrEqual(TRIM_BATCH);
    expect(Math.max(...commands.map((args) => args.length))).toBeLessThanOrEqual(TRIM_BATCH + 2);
  }

  it('deletes runs older than the retention with every key and index entry, and keeps the rest', async () => {
    const prefix = uniquePrefix('trim');
    const store = new Outcomes(redis, prefix);
    const queries = new OutcomeQueries(redis, prefix);
    await runWithItems(store, 'nightly@old', new Date(now.getTime() - 91 * DAY), 6);
    await runWithItems(store, 'nightly@older', new Date(now.getTime() - 200 * DAY), 3);
    await runWithItems(store, 'nightly@recent', new Date(now.getTime() - 89 * DAY), 6);
    // A target only the old run saw, by name.
    await store.items.record('nightly@old', 'only-old', {
      status: 'succeeded',
      target: 'gone',
      targetName: 'Gone-VM',
    });
    const before = await keysUnder(redis, prefix);

    expect(await trimOutcomes(redis, prefix, { now, retentionDays: 90 })).toEqual({
      runs: 2,
      items: 10,
    });

    expect((await queries.listRuns()).map((run) => run.runId)).toEqual(['nightly@recent']);
    const items: string[] = [];
    for await (const item of queries.items({ target: 'wl-0' })) items.push(item.runId);
    expect(items).toEqual(['nightly@recent']);
    const gone: unknown[] = [];
    for await (const item of queries.items({ target: 'gone-vm' })) gone.push(item);
    expect(gone).toEqual([]);

    // Nothing of the old runs is left behind, and the recent run's keys are untouched.
    const after = await keysUnder(redis, prefix);
    expect(after.filter((key) => key.includes('nightly@old'))).toEqual([]);
    expect(after.filter((key) => key.endsWith(':target:gone'))).toEqual([]);
    expect(after.filter((key) => key.includes('nightly@recent'))).toEqual(
      before.filter((key) => key.includes('nightly@recent')),
    );
    expect(await redis.hexists(`${prefix}:outcomes:target-names`, 'gone-vm')).toBe(0);
    expect(await trimOutcomes(redis, prefix, { now, retentionDays: 90 })).toEqual({
      runs: 0,
      items: 0,
    });
  });

  it('lets one replica trim per interval', async () => {
    const prefix = uniquePrefix('trim-lock');
    const store = new Outcomes(redis, prefix);
    await runWithItems(store, 'nightly@old', new Date(now.getTime() - 100 * DAY), 1);
    const options = {
      redis,
      prefix,
      retentionDays: 90,
      intervalMs: 60_000,
      logger: silentLogger(),
      clock: () => now,
    };
    const first = new RetentionTrimmer(options);
    const second = new RetentionTrimmer(options);
    await first.trimOnce();
    expect(await store.runs.get('nightly@old')).toBeUndefined();
    await runWithItems(store, 'nightly@old2', new Date(now.getTime() - 100 * DAY), 1);
    // The lock is held for the interval: the second replica does not trim now.
    await second.trimOnce();
    expect(await store.runs.get('nightly@old2')).toBeDefined();
    expect(await redis.pttl(`${prefix}:outcomes:trim-lock`)).toBeGreaterThan(0);
  });

  it('answers a status query on a 5,000-item run from the status index', async () => {
    const prefix = uniquePrefix('big-run');
    const store = new Outcomes(redis, prefix);
    const queries = new OutcomeQueries(redis, prefix);
    await store.runs.create({
      runId: 'big@1',
      definitionId: 'big',
      kind: 'snapshot',
      fireTime: now,
      trigger: 'cron',
      status: 'queued',
    });
    // 5,000 items through the store's own script, concurrently; every 97th failed.
    const writes: Promise<unknown>[] = [];
    for (let index = 0; index < 5000; index++) {
      writes.push(
        store.items.record('big@1', `wl-${String(index).padStart(5, '0')}`, {
          status: index % 97 === 0 ? 'failed' : 'succeeded',
          target: `wl-${index}`,
        }),
      );
    }
    await Promise.all(writes);
    const run = await store.runs.get('big@1');
    expect(run?.counts).toMatchObject({ total: 5000, failed: 52, succeeded: 4948 });

    const failed: string[] = [];
    for await (const item of queries.items({ runId: 'big@1', statuses: ['failed'] })) {
      failed.push(item.itemKey);
    }
    expect(failed).toHaveLength(52);
    expect(await redis.scard(`${prefix}:outcomes:items:big@1:failed`)).toBe(52);
    // Succeeded items are not indexed (the scan finds them): no set of 4,948 keys exists.
    expect(await redis.exists(`${prefix}:outcomes:items:big@1:succeeded`)).toBe(0);
    let succeeded = 0;
    for await (const _item of queries.items({ runId: 'big@1', statuses: ['succeeded'] }))
      succeeded++;
    expect(succeeded).toBe(4948);
  });
});
