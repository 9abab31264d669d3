import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ItemRow } from '../../../src/outcomes/outcome-records.js';
import type { PawProcess } from '../../testkit/paw-process.js';
import { exitWithin } from '../../testkit/exit-within.js';
import { startWorkerTestKit, type WorkerTestKit } from '../../testkit/worker-kit.js';
import { eventually } from '../../testkit/eventually.js';

/**
 * SIGTERM on a worker in the middle of a run, three ways, then a fresh worker finishes it:
 * a drain within the grace period, a grace period that runs out (active jobs aborted and left
 * delayed), and a second signal that forces exit. Nothing is lost and nothing is triggered twice.
 */
describe('worker shutdown (SIGTERM)', () => {
  let kit: WorkerTestKit;

  beforeAll(async () => {
    kit = await startWorkerTestKit(
      // Enough workloads that each worker below still finds some to trigger: a lane keeps as
      // many triggers going as the request gate lets out, and a drain finishes what it took.
      { workloads: 150, seed: 8, timeScale: 60, jobs: { failureRate: 0, cancelRate: 0 } },
      'drain',
    );
  });
  afterAll(() => kit.close());

  async function setLatency(takeSnapshotMs: number, statusMs: number): Promise<void> {
    const rule = (ms: number) => (ms === 0 ? {} : { latency: { fixedMs: ms } });
    await kit.control('PUT', '/_sim/faults', {
      operations: { takeSnapshot: rule(takeSnapshotMs), getSnapshotJobStatus: rule(statusMs) },
    });
  }

  const snapshotQueue = () => kit.queues.queue('snapshot');

  /**
   * A worker at 5 platform requests a second, the run in one lane: the lane takes a few
   * workloads at a time (about a second of the rate), so each worker below finds some still to
   * trigger. One lane by size and by rate: a run fanned out page by page over several walks
   * (one per cluster) has its lane count from the rate (docs/worker.md, "The lane count"), and
   * the kit's lane rate would make it 16 lanes, which trigger everything before the third worker
   * starts.
   */
  const worker = (env: Record<string, string> = {}) =>
    kit.paw(['worker'], {
      PAW_PLATFORM_RPS: '5',
      PAW_SNAPSHOT_LANE_SIZE: '1000',
      PAW_SNAPSHOT_LANE_RPS: '1000',
      ...env,
    });

  /** Items whose trigger is on its way (intent recorded, no answer yet), sent after `since`. */
  const inFlight = (items: ItemRow[], since = 0) =>
    items.filter(
      (item) =>
        item.status === 'running' &&
        item.platformJobId === undefined &&
        Date.parse(String(item.details?.['triggerAttemptAt'] ?? '')) >= since,
    );

  /** Waits until `worker` is ready and has a trigger of its own on its way. */
  async function triggering(worker: PawProcess, runId: string): Promise<void> {
    await worker.waitForStderr(/paw worker: ready/, 60_000);
    const ready = Date.now();
    await eventually(
      'a trigger in flight',
      async () => inFlight(await kit.items(runId), ready).length > 0,
      {
        detail: async () =>
          `the run's items by status: ${JSON.stringify((await kit.outcomes.runs.get(runId))?.counts)}`,
      },
    );
  }

  it('drains, aborts after the grace period, forces on a second signal, and loses nothing', async () => {
    const connected = kit.sim.clusters
      .filter((cluster) => cluster.connectionState === 'Connected')
      .map((cluster) => cluster.id);
    const runId = await kit.fire({
      id: 'drained',
      kind: 'snapshot',
      schedule: { cron: '0 1 * * *' },
      targets: { types: ['VSPHERE_VM', 'MSSQL_DATABASE'], clusterIds: connected },
      retention: { slaDomainName: 'Bronze' },
      maxWait: '1h',
    });

    // 1. A drain: platform calls take 1 s, the grace period 10 s. The active jobs finish their
    //    step and the worker exits 0; polled jobs wait delayed, none is active or failed.
    await setLatency(1_000, 1_000);
    const draining = worker({ PAW_WORKER_SHUTDOWN_GRACE_MS: '10000' });
    await eventually(
      'a few snapshots triggered',
      async () =>
        (await kit.items(runId)).filter((item) => item.platformJobId !== undefined).length >= 3,
    );
    expect(await exitWithin(draining.stop('SIGTERM'), 'the draining worker')).toEqual({
      code: 0,
      signal: null,
    });
    expect(draining.stderr).toMatch(/paw worker: stopping: no new jobs/);
    expect(draining.stderr).toMatch(/paw worker: stopped/);
    expect(draining.stderr).not.toMatch(/grace period over/);
    expect(await snapshotQueue().getJobCounts('active', 'failed')).toEqual({
      active: 0,
      failed: 0,
    });
    expect(inFlight(await kit.items(runId))).toEqual([]);

    // 2. The grace period (1 s) runs out while triggers take 3 s: their AbortSignal fires, they
    //    are left delayed (the trigger may have reached the platform: the retry reconciles).
    await setLatency(3_000, 0);
    const aborted = worker({ PAW_WORKER_SHUTDOWN_GRACE_MS: '1000' });
    await triggering(aborted, runId);
    expect(await exitWithin(aborted.stop('SIGTERM'), 'the aborted worker')).toEqual({
      code: 0,
      signal: null,
    });
    expect(aborted.stderr).toMatch(/grace period over: aborting active jobs/);
    expect(aborted.stderr).toMatch(/shutting down while triggering the snapshot/);
    expect(await snapshotQueue().getJobCounts('active', 'failed')).toEqual({
      active: 0,
      failed: 0,
    });

    // 3. A second signal forces exit at once, whatever is active.
    const forced = worker({ PAW_WORKER_SHUTDOWN_GRACE_MS: '30000' });
    await triggering(forced, runId);
    forced.child.kill('SIGTERM');
    await forced.waitForStderr(/paw worker: stopping/);
    forced.child.kill('SIGTERM');
    expect(await exitWithin(forced.exited, 'the forced worker', 10_000)).toEqual({
      code: 143,
      signal: null,
    });
    expect(forced.stderr).toMatch(/second signal: forcing exit/);

    // 4. A fresh worker finishes the run: every workload snapshotted once, every outcome there.
    await setLatency(0, 0);
    const finisher = kit.paw(['worker']);
    const run = await kit.waitForRun(runId, 120_000);
    const items = await kit.items(runId);
    const triggers = kit.sim.stats().snapshotTriggers;
    expect(run.status).toBe('succeeded');
    expect(items.length).toBeGreaterThan(10);
    for (const item of items) {
      expect(item.status).toBe('succeeded');
      expect(triggers[item.target ?? ''], `triggers of ${item.itemKey}`).toBe(1);
    }
    expect(await snapshotQueue().getJobCounts('failed')).toEqual({ failed: 0 });
    expect(await exitWithin(finisher.stop('SIGTERM'), 'the last worker')).toEqual({
      code: 0,
      signal: null,
    });
  });
});
