import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogs } from '../../testkit/log-capture.js';
import { eventually } from '../../testkit/eventually.js';
import { PawMetrics } from '../../../src/ops/metrics/paw-metrics.js';
import { startOpsServer } from '../../../src/ops/ops-server.js';
import { RateLimitRecord } from '../../../src/platform/rate-limit/rate-limit-record.js';
import { startWorkerTestKit, type WorkerTestKit } from '../../testkit/worker-kit.js';

/**
 * A real `paw worker` process meets 429s from the platform: each one lands in the record the
 * dashboard reads (RateLimitRecord), and the run's progress picture counts them.
 */
describe("the platform's 429s, recorded by the workers for the dashboard", () => {
  const logs = captureLogs('info');
  let kit: WorkerTestKit;

  beforeAll(async () => {
    kit = await startWorkerTestKit({ workloads: 12, seed: 5, timeScale: 600 }, 'rate-record');
  });
  afterAll(() => kit.close());

  it('counts every 429 a worker got, and shows them under the run they slowed', async () => {
    const worker = kit.paw(['worker']);
    await worker.waitForStderr(/paw worker: ready/, 60_000);
    const connected = kit.sim.clusters
      .filter((cluster) => cluster.connectionState === 'Connected')
      .map((cluster) => cluster.id);
    // Three status reads answer 429 (the worker retries each, so the run still succeeds).
    await kit.control('PUT', '/_sim/faults', {
      operations: { getSnapshotJobStatus: { tooManyRequestsRate: 1, times: 3 } },
    });
    const before = new Date(Date.now() - 60_000);
    const runId = await kit.fire({
      id: 'limited',
      kind: 'snapshot',
      schedule: { cron: '0 1 * * *' },
      targets: { types: ['VSPHERE_VM'], clusterIds: connected },
      retention: { slaDomainName: 'Gold' },
    });
    const run = await kit.waitForRun(runId, 120_000);
    expect(run.status).toBe('succeeded');
    expect(kit.sim.stats().faultsInjected).toMatchObject({ tooManyRequests: 3 });

    const record = new RateLimitRecord(kit.redis, kit.prefix, 3600);
    const total = async () =>
      [...(await record.between(before, new Date(Date.now() + 60_000))).values()].reduce(
        (sum, count) => sum + count,
        0,
      );
    // Written in the background as each 429 arrives.
    await eventually('three 429s on record', async () => (await total()) === 3);

    const server = await startOpsServer({
      settings: kit.settings(),
      logger: logs.logger,
      role: 'scheduler',
      version: 'test',
      metrics: new PawMetrics({ processMetrics: false }),
      port: 0,
    });
    try {
      const view = (await (
        await request(`${server?.url ?? ''}/api/runs/${encodeURIComponent(runId)}`)
      ).body.json()) as { progress: { rateLimited: number; ended: number; total: number } };
      expect(view.progress.rateLimited).toBe(3);
      expect(view.progress.ended).toBe(run.counts.total);
    } finally {
      await server?.close();
      await worker.stop('SIGTERM');
    }
  }, 180_000);
});
