import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSentinelRedis, type SentinelRedis } from '../testkit/sentinel-redis.js';
import { startWorkerTestKit, type WorkerTestKit } from '../testkit/worker-kit.js';
import { systemTool } from '../testkit/system-tool.js';
import { eventually } from '../testkit/eventually.js';

const TOOL = systemTool(
  'redis-sentinel',
  'Debian: apt-get install -y redis-sentinel',
  'the Sentinel failover test',
);

/**
 * Redis behind Sentinel, with real redis-server and redis-sentinel processes: the primary is
 * killed mid-night, Sentinel promotes the replica, paw's processes find it and reconnect, and
 * the night ends with every workload triggered exactly once and every outcome recorded.
 */
describe.skipIf(!TOOL.available)('Redis Sentinel failover during a snapshot night', () => {
  let sentinel: SentinelRedis;
  let kit: WorkerTestKit;

  beforeAll(async () => {
    sentinel = await startSentinelRedis();
    kit = await startWorkerTestKit(
      { workloads: 60, seed: 23, timeScale: 60, jobs: { failureRate: 0, cancelRate: 0 } },
      'sentinel',
      sentinel.url,
    );
  }, 60_000);
  afterAll(async () => {
    await kit?.close();
    await sentinel?.stop();
  });

  it('kills the primary mid-night: paw follows the promoted replica, each workload once', async () => {
    const before = await sentinel.currentPrimary();
    expect(before).toBe(`127.0.0.1:${sentinel.primary.port}`);
    const workers = [kit.paw(['worker'], { PAW_LOG_LEVEL: 'info' }), kit.paw(['worker'])];
    await Promise.all(workers.map((worker) => worker.waitForStderr(/: ready/, 30_000)));
    const runId = await kit.fire({
      id: 'sentinel-night',
      kind: 'snapshot',
      schedule: { cron: '0 1 * * *' },
      targets: {
        types: ['VSPHERE_VM', 'MSSQL_DATABASE'],
        // Workloads of disconnected clusters fail as the platform decides: not this test's subject.
        clusterIds: kit.sim.clusters
          .filter((cluster) => cluster.connectionState === 'Connected')
          .map((cluster) => cluster.id),
      },
      retention: { slaDomainName: 'Gold' },
      maxWait: '1h',
    });
    // Mid-night: some items ended, most not.
    await eventually(
      'five items to succeed',
      async () => ((await kit.outcomes.runs.get(runId))?.counts.succeeded ?? 0) >= 5,
    );
    await sentinel.primary.kill('SIGKILL');
    await eventually(
      'Sentinel to promote the replica',
      async () => (await sentinel.currentPrimary()) === `127.0.0.1:${sentinel.replica.port}`,
      { timeoutMs: 30_000 },
    );

    const run = await kit.waitForRun(runId, 120_000);
    const items = await kit.items(runId);
    const triggers = kit.sim.stats().snapshotTriggers;
    expect(items.length).toBeGreaterThan(10);
    for (const item of items) {
      expect(item, `item ${item.itemKey}: ${JSON.stringify(item)}`).toMatchObject({
        status: 'succeeded',
      });
      expect(triggers[item.target ?? ''], `triggers of ${item.itemKey}`).toBe(1);
    }
    expect(run).toMatchObject({ status: 'succeeded' });
    // Both workers lived through it: they reconnected rather than exiting.
    for (const worker of workers) expect(worker.child.exitCode).toBeNull();
  }, 180_000);
});
