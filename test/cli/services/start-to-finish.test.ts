import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issuedSecrets, leakedSecrets } from '../../testkit/secret-scan.js';
import { exitWithin } from '../../testkit/exit-within.js';
import { startWorkerTestKit, type WorkerTestKit } from '../../testkit/worker-kit.js';
import { eventually } from '../../testkit/eventually.js';

/**
 * `paw start` (scheduler + workers) and a second `paw worker`, as real processes, on a
 * second-level cron against the simulator: runs fire, fan out, trigger, poll and end; every
 * trigger's answer is recorded; no secret reaches a log line (debug level), job data or any
 * Redis key or value.
 */
describe('snapshot runs start to finish (paw start + paw worker processes)', () => {
  let kit: WorkerTestKit;

  beforeAll(async () => {
    kit = await startWorkerTestKit({ workloads: 30, seed: 5, timeScale: 600 }, 'e2e');
  });
  afterAll(() => kit.close());

  it('records every run and item with platform job ids, triggers each workload once per run, and leaks no secret', async () => {
    const connected = kit.sim.clusters
      .filter((cluster) => cluster.connectionState === 'Connected')
      .map((cluster) => cluster.id);
    await kit.writeJobs(`
id: every-3s
kind: snapshot
schedule: { cron: "*/3 * * * * *", allowSubMinute: true, overlap: skip }
targets: { types: [VSPHERE_VM, MSSQL_DATABASE], clusterIds: [${connected.join(', ')}] }
retention: { slaDomainName: Silver }
maxWait: 1h
`);
    const start = kit.paw(['start', '--kinds', 'snapshot']);
    const worker = kit.paw(['worker']);
    await start.waitForStderr(/paw start: ready/, 60_000);
    await worker.waitForStderr(/paw worker: ready: snapshot/, 60_000);

    const succeededRuns = async () =>
      (await kit.queries.listRuns({ definitionId: 'every-3s' })).filter(
        (run) => run.status === 'succeeded',
      );
    await eventually('two runs to succeed', async () => (await succeededRuns()).length >= 2, {
      timeoutMs: 90_000,
    });

    const exits = await Promise.all([
      exitWithin(start.stop('SIGTERM'), 'paw start'),
      exitWithin(worker.stop('SIGTERM'), 'paw worker'),
    ]);
    expect(exits).toEqual([
      { code: 0, signal: null },
      { code: 0, signal: null },
    ]);
    expect(start.stderr).toMatch(/paw start: stopped/);
    expect(worker.stderr).toMatch(/paw worker: stopped/);

    // Both processes took lane jobs.
    const tookItems = (stderr: string) => /"msg":"snapshot triggered"/.test(stderr);
    expect(tookItems(start.stderr) || tookItems(worker.stderr)).toBe(true);

    const runs = await kit.queries.listRuns({ definitionId: 'every-3s' });
    const recordedJobs = new Map<string, number>();
    for (const run of runs) {
      const items = await kit.items(run.runId);
      if (run.status === 'succeeded') {
        expect(items.length).toBeGreaterThan(5);
        expect(run.counts.succeeded).toBe(items.length);
        for (const item of items) {
          expect(item).toMatchObject({ status: 'succeeded', action: 'snapshot' });
          expect(item.platformJobId).toMatch(/^(CREATE_VSPHERE_SNAPSHOT|MSSQL_DB_BACKUP)_/);
          expect(item.finishedAt).toEqual(expect.any(String));
        }
      }
      for (const item of items) {
        if (item.platformJobId === undefined) continue;
        const target = item.target ?? '';
        recordedJobs.set(target, (recordedJobs.get(target) ?? 0) + 1);
      }
    }
    // Every trigger the platform saw has its answer on record (the drain let active jobs
    // finish), and no workload was triggered twice in a run.
    const triggers = kit.sim.stats().snapshotTriggers;
    expect(Object.fromEntries([...recordedJobs].sort())).toEqual(
      Object.fromEntries(Object.entries(triggers).sort()),
    );

    // Secrets: the simulator's issued secrets appear in no log (both processes logged at debug
    // level), no job data and no Redis key or value under the test's prefix.
    const secrets = await issuedSecrets(kit.sim.baseUrl);
    expect(secrets.length).toBeGreaterThan(1);
    expect(start.stderr).toMatch(/"level":20/);
    expect(leakedSecrets(start.stderr + start.stdout, secrets)).toEqual([]);
    expect(leakedSecrets(worker.stderr + worker.stdout, secrets)).toEqual([]);
    const dump = await kit.dumpRedis();
    expect(dump).toContain('snapshot-lane'); // the dump holds the jobs' traces
    expect(leakedSecrets(dump, secrets)).toEqual([]);
  });
});
