import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PawProcess } from '../../testkit/paw-process.js';
import { exitWithin } from '../../testkit/exit-within.js';
import { startWorkerTestKit, type WorkerTestKit } from '../../testkit/worker-kit.js';
import { eventually } from '../../testkit/eventually.js';

/**
 * Three worker processes against a simulator that allows 20 requests per second. Each is
 * configured for 15 per second: alone, three would send 45. The gate they share through Redis
 * keeps them at 15 together, and a 429 seen by one of them pauses all three.
 */
describe('the platform rate limit, shared by worker processes', () => {
  let kit: WorkerTestKit;

  beforeAll(async () => {
    kit = await startWorkerTestKit(
      // Enough workloads that the run outlasts the three workers' start on it: with 40, two
      // workers' lanes triggered and ended all 22 before the third had triggered any.
      { workloads: 160, seed: 21, timeScale: 30, rateLimit: { requestsPerSecond: 20, burst: 5 } },
      'rate',
    );
  });
  afterAll(() => kit.close());

  it('keeps 429s to a handful, and a 429 seen by one worker slows every worker', async () => {
    const connected = kit.sim.clusters
      .filter((cluster) => cluster.connectionState === 'Connected')
      .map((cluster) => cluster.id);
    // One snapshot job at a time per worker: the run's four lanes spread over all three. A run
    // fanned out page by page over one walk per cluster has its lane count from the rate
    // (docs/worker.md, "The lane count"): 15 requests a second at 4 a lane.
    const configDir = join(kit.dir, 'one-lane-each');
    await mkdir(configDir, { recursive: true });
    const settings = await readFile(join(kit.dir, 'config', 'paw.yaml'), 'utf8');
    const oneAtATime = settings.replace(/concurrency: 5/, 'concurrency: 1');
    expect(oneAtATime).not.toEqual(settings);
    await writeFile(join(configDir, 'paw.yaml'), oneAtATime);
    const env = { PAW_PLATFORM_RPS: '15', PAW_SNAPSHOT_LANE_RPS: '4', PAW_CONFIG_DIR: configDir };
    const workers: PawProcess[] = [
      kit.paw(['worker'], env),
      kit.paw(['worker'], env),
      kit.paw(['worker'], env),
    ];
    await Promise.all(workers.map((worker) => worker.waitForStderr(/paw worker: ready/, 60_000)));
    await kit.control('DELETE', '/_sim/stats');

    const runId = await kit.fire({
      id: 'many',
      kind: 'snapshot',
      schedule: { cron: '0 1 * * *' },
      targets: { types: ['VSPHERE_VM', 'MSSQL_DATABASE'], clusterIds: connected },
      retention: { slaDomainName: 'Gold' },
      maxWait: '1h',
    });

    // Once every worker is busy with the run, the platform answers one status read with a 429.
    const busy = (worker: PawProcess) => /"msg":"snapshot triggered"/.test(worker.stderr);
    await eventually('every worker to trigger snapshots', () => workers.every(busy), {
      timeoutMs: 60_000,
      detail: async () =>
        `workers that triggered: ${workers.map(busy).join(', ')}; items: ${JSON.stringify((await kit.outcomes.runs.get(runId))?.counts)}`,
    });
    await kit.control('PUT', '/_sim/faults', {
      operations: { getSnapshotJobStatus: { tooManyRequestsRate: 1, times: 1 } },
    });

    const run = await kit.waitForRun(runId, 120_000);
    const stats = kit.sim.stats();
    const items = await kit.items(runId);
    expect(run.status).toBe('succeeded');
    expect(items.length).toBeGreaterThan(15);
    // Each item was triggered and polled (jobs take seconds here, polls every 50 ms at most).
    expect(stats.requests).toBeGreaterThan(items.length * 2);
    // Three workers at 15 requests per second each would overrun the platform's 20; together
    // they stayed under it: a handful of 429s at most.
    expect(stats.rateLimited).toBeLessThanOrEqual(5);
    expect(stats.faultsInjected).toMatchObject({ tooManyRequests: 1 });

    // The injected 429 reached one worker, and the pause it set reached all three.
    const pauses = workers.map((worker) =>
      worker
        .logRecords()
        .filter((record) => String(record['msg']).startsWith('platform rate limit (429)')),
    );
    const sources = pauses.flat().map((record) => record['source']);
    expect(sources.filter((source) => source === 'this process').length).toBeGreaterThanOrEqual(1);
    for (const [index, records] of pauses.entries()) {
      expect(records.length, `worker ${index} honoured the shared pause`).toBeGreaterThan(0);
    }
    await Promise.all(workers.map((worker) => exitWithin(worker.stop('SIGTERM'), 'a worker')));
  });
});
