import { createHook } from 'node:async_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutcomeKeys } from '../../../../src/outcomes/outcome-keys.js';
import { LaneKeys } from '../../../../src/job-kinds/snapshot/lanes/lane-keys.js';
import {
  startPrivateRedisServer,
  type PrivateRedisServer,
} from '../../../../src/redis/private-redis-server.js';
import { eventually } from '../../../testkit/eventually.js';
import { startWorkerTestKit, type WorkerTestKit } from '../../../testkit/worker-kit.js';

/** Lua script calls so far on `kit`'s Redis (INFO commandstats). */
async function scriptCalls(kit: WorkerTestKit): Promise<number> {
  const info = await kit.redis.info('commandstats');
  const calls = (name: string) =>
    Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
  return calls('evalsha') + calls('eval');
}

/**
 * A snapshot run's items in lanes (docs/worker.md, "A snapshot run"): each item in exactly one
 * lane while it is going, a few Redis scripts for many items, and nothing left once it ends. On
 * a Redis of its own, so that its script count is this run's alone.
 */
describe('a snapshot run in lanes', () => {
  let redisServer: PrivateRedisServer;
  let kit: WorkerTestKit;

  beforeAll(async () => {
    redisServer = await startPrivateRedisServer();
    kit = await startWorkerTestKit(
      { workloads: 80, seed: 12, timeScale: 300 },
      'lanes',
      redisServer.url,
    );
  });
  afterAll(async () => {
    await kit?.close();
    await redisServer?.stop();
  });

  it('keeps each item in one place, the lane queue or one lane, works through many items per script, and leaves nothing behind', async () => {
    const connected = kit.sim.clusters
      .filter((cluster) => cluster.connectionState === 'Connected')
      .map((cluster) => cluster.id);
    // Lanes of 25, and one per 20 of the rate's 40 a second: two, each with many items to take
    // at once. (The run's walks, one per cluster, are pages the run fans out one by one: its lane
    // count is decided at the first, before the others are in, so by the rate.)
    const worker = await kit.startInProcessWorker({
      worker: {
        snapshotLaneSize: 25,
        snapshotLaneRequestsPerSecond: 20,
        snapshotPoll: { minMs: 300, maxMs: 600 },
      },
    });
    const keys = new OutcomeKeys(kit.prefix);
    const laneKeys = new LaneKeys(keys);
    try {
      const scriptsBefore = await scriptCalls(kit);
      const runId = await kit.fire({
        id: 'in-lanes',
        kind: 'snapshot',
        schedule: { cron: '0 1 * * *' },
        targets: { types: ['VSPHERE_VM', 'MSSQL_DATABASE'], clusterIds: connected },
        retention: { slaDomainName: 'Gold' },
        maxWait: '1h',
      });
      // While the run goes on, every item not ended is in exactly one place: the run's lane
      // queue, or the lane that took it.
      const lanes = Number(
        await eventually(
          'the run to be split into lanes',
          async () => (await kit.redis.hget(keys.run(runId), 'lanes')) ?? undefined,
        ),
      );
      const places = await Promise.all([
        kit.redis.zrange(laneKeys.laneQueue(runId), '0', '-1'),
        ...Array.from({ length: lanes }, (_, lane) =>
          kit.redis.zrange(laneKeys.lane(runId, lane), '0', '-1'),
        ),
      ]);
      const placed = places.flat();
      expect(new Set(placed).size).toBe(placed.length);

      const run = await kit.waitForRun(runId, 60_000);
      const items = await kit.items(runId);
      const scripts = (await scriptCalls(kit)) - scriptsBefore;
      expect(run.status).toBe('succeeded');
      expect(items.length).toBeGreaterThan(30);
      expect(lanes).toBe(2);
      expect(placed.length).toBeLessThanOrEqual(items.length);
      for (const item of items) {
        expect(item.status, item.itemKey).toBe('succeeded');
        expect(kit.sim.stats().snapshotTriggers[item.target ?? '']).toBe(1);
      }
      // A job per workload cost at least six scripts each (its intent, its answer with its move,
      // the read before its poll, its end, BullMQ's fetch and finish: 8 to 11 a snapshot in
      // BENCHMARKS.md), and the request gate's and BullMQ's checks came on top; the lanes share
      // theirs (about 2 an item here, with this run's fast polls).
      expect(scripts / items.length).toBeLessThan(4);
      expect(await kit.redis.exists(laneKeys.laneQueue(runId))).toBe(0);
      for (let lane = 0; lane < lanes; lane++) {
        expect(await kit.redis.exists(laneKeys.lane(runId, lane)), `lane ${lane}`).toBe(0);
      }
      // The run ends in a lane's write; the lane jobs complete right after theirs.
      const snapshotQueue = kit.queues.queue('snapshot');
      await eventually('the lane jobs to complete', async () => {
        const counts = await snapshotQueue.getJobCounts('active', 'delayed', 'wait');
        return Object.values(counts).every((count) => count === 0) ? true : undefined;
      });
      expect(await snapshotQueue.getJobCounts('failed', 'completed')).toEqual({
        failed: 0,
        completed: 0,
      });
    } finally {
      await worker.stop();
    }
  });

  it('waits for its items in flight without spinning: a trigger the platform holds 2 s costs the lane a few timers, not one a millisecond', async () => {
    const workloadId = kit.sim.fixtures().workloads.samples.vsphereVm ?? '';
    const triggersBefore = kit.sim.stats().snapshotTriggers[workloadId] ?? 0;
    kit.sim.setFaults({ operations: { takeSnapshot: { latency: { fixedMs: 2_000 } } } });
    const worker = await kit.startInProcessWorker({
      worker: { snapshotPoll: { minMs: 300, maxMs: 600 } },
    });
    // Every timer this process creates while the run goes on: the lane's, the worker's, the
    // request gate's, this test's own wait. A lane that waited for the held trigger by waking
    // every millisecond created one a millisecond, about 1,750 here.
    let timers = 0;
    const hook = createHook({
      init: (_id, type) => {
        if (type === 'Timeout') timers++;
      },
    });
    try {
      hook.enable();
      const runId = await kit.fire({
        id: 'held-trigger',
        kind: 'snapshot',
        schedule: { cron: '0 1 * * *' },
        targets: { ids: [workloadId] },
        retention: { slaDomainName: 'Gold' },
        maxWait: '1h',
      });
      const run = await kit.waitForRun(runId, 30_000);
      hook.disable();
      expect(run.status).toBe('succeeded');
      expect(kit.sim.stats().snapshotTriggers[workloadId]).toBe(triggersBefore + 1);
      expect(timers).toBeLessThan(300);
    } finally {
      hook.disable();
      kit.sim.setFaults({ operations: {} });
      await worker.stop();
    }
  });
});
