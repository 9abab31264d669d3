import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/shared/logger.js';
import type { Outcomes } from '../../../src/outcomes/outcomes.js';
import {
  createPlatformClient,
  type PlatformClient,
} from '../../../src/platform/platform-client.js';
import { findEarlierTrigger } from '../../../src/job-kinds/snapshot/trigger-reconciliation.js';
import type { SnapshotTracking } from '../../../src/platform/jobs/snapshot-tracking.js';
import { startWorkerTestKit, type WorkerTestKit } from '../../testkit/worker-kit.js';
import { eventually } from '../../testkit/eventually.js';
import { captureLogs } from '../../testkit/log-capture.js';

/** Another run of the workload, created as the scheduler would at `at` (fired a second before). */
async function createOtherRun(outcomes: Outcomes, runId: string, at: number): Promise<void> {
  await outcomes.runs.create({
    runId,
    definitionId: runId.split('@')[0] ?? runId,
    kind: 'snapshot',
    fireTime: new Date(at - 1000),
    trigger: 'manual',
    status: 'queued',
  });
}

/**
 * Reconciliation of an unanswered trigger on a platform whose activity names no job (as the
 * real platform's does): a trace left by another run's trigger of the same workload, seconds
 * earlier, is that run's, not ours; adopting it would leave this run's workload unsnapshotted.
 */
describe('findEarlierTrigger', () => {
  let kit: WorkerTestKit;
  let client: PlatformClient;

  beforeAll(async () => {
    kit = await startWorkerTestKit(
      {
        workloads: 10,
        seed: 5,
        eventsWithoutJobIds: true,
        timeScale: 600,
        // Jobs of 10 s (real time), started at once: while they run, their only trace is
        // activity without a job id (no finished snapshot yet).
        jobs: { durationSeconds: { median: 6000, sigma: 0.01, min: 6000 }, queuedSeconds: 0 },
      },
      'reconcile',
    );
    client = await createPlatformClient({ settings: kit.settings(), logger: silentLogger() });
  });
  afterAll(async () => {
    await client?.close();
    await kit?.close();
  });

  it("leaves another run's trace of the workload alone, and still finds its own while both run", async () => {
    const workloadId = kit.sim.fixtures().workloads.samples.vsphereVm ?? '';
    const workload = await client.api.workloads.get(workloadId);
    // Another run triggered this workload and recorded the answer (a job id, no activity id).
    const earlier = await client.api.workloads.takeSnapshot(workload);
    const earlierAt = Date.now();
    await createOtherRun(kit.outcomes, 'other@20261124T010000Z', earlierAt);
    await kit.outcomes.items.record('other@20261124T010000Z', workloadId, {
      status: 'running',
      target: workloadId,
      platformJobId: earlier.job.id,
      details: { triggeredAt: new Date(earlierAt).toISOString() },
    });
    const request = {
      platform: client,
      queries: kit.queries,
      logger: silentLogger(),
      runId: 'ours@20261124T020000Z',
      workload,
      // Our first attempt, seconds later: within the clock-skew allowance of the other trace.
      since: earlierAt + 4000,
    };
    await new Promise((resolve) => setTimeout(resolve, 4500));
    expect(await findEarlierTrigger(request)).toBeUndefined();

    // Our own trigger, whose answer was lost: found through its activity, which names no job,
    // although the other run's job still runs and its events (no job id either) came first.
    // Joined with those into one activity and then set aside as the other run's, it was missed,
    // and the retry triggered a second snapshot.
    await client.api.workloads.takeSnapshot(workload);
    let found: Awaited<ReturnType<typeof findEarlierTrigger>>;
    await eventually(
      'our own trace to show',
      async () => {
        found = await findEarlierTrigger(request);
        return found !== undefined;
      },
      { timeoutMs: 8_000 },
    );
    expect(found).toMatchObject({ found: 'tracking', others: 0 });
  });

  describe("when the other run's job ends after our first attempt", () => {
    let shortKit: WorkerTestKit;
    let shortClient: PlatformClient;
    beforeAll(async () => {
      shortKit = await startWorkerTestKit(
        {
          workloads: 10,
          seed: 6,
          eventsWithoutJobIds: true,
          timeScale: 600,
          // Jobs of 3 s (real time): the other run's job ends between the border and our lookup.
          jobs: { durationSeconds: { median: 1800, sigma: 0.01, min: 1800 }, queuedSeconds: 0 },
        },
        'reconcile-late-end',
      );
      shortClient = await createPlatformClient({
        settings: shortKit.settings(),
        logger: silentLogger(),
      });
    });
    afterAll(async () => {
      await shortClient?.close();
      await shortKit?.close();
    });

    it("does not take the other job's end for a trace of ours", async () => {
      const workloadId = shortKit.sim.fixtures().workloads.samples.vsphereVm ?? '';
      const workload = await shortClient.api.workloads.get(workloadId);
      const earlier = await shortClient.api.workloads.takeSnapshot(workload);
      const earlierAt = Date.now();
      await createOtherRun(shortKit.outcomes, 'other@20261124T010000Z', earlierAt);
      await shortKit.outcomes.items.record('other@20261124T010000Z', workloadId, {
        status: 'running',
        target: workloadId,
        platformJobId: earlier.job.id,
        details: { triggeredAt: new Date(earlierAt).toISOString() },
      });
      // Our first attempt 2 s after theirs (the border 1 s after it); their job ends at 3 s.
      await new Promise((resolve) => setTimeout(resolve, 4500));
      const found = await findEarlierTrigger({
        platform: shortClient,
        queries: shortKit.queries,
        logger: silentLogger(),
        runId: 'ours@20261124T020000Z',
        workload,
        since: earlierAt + 2000,
      });
      // Neither their end event nor their finished snapshot (named by their job id) is ours.
      expect(found).toBeUndefined();
    });

    it("does not take the finished snapshot of another run's item that followed its activity", async () => {
      // The other run lost its trigger's answer and followed the workload's activity (no job id,
      // no snapshot id on record), then ended. Our own trigger never reached the platform.
      const workloadId = shortKit.sim.fixtures().workloads.samples.mssqlDatabase ?? '';
      const workload = await shortClient.api.workloads.get(workloadId);
      await shortClient.api.workloads.takeSnapshot(workload);
      const earlierAt = Date.now();
      const runId = 'followed@20261124T030000Z';
      await createOtherRun(shortKit.outcomes, runId, earlierAt);
      // Their job ends 3 s after the trigger; their item records that end a moment later.
      await new Promise((resolve) => setTimeout(resolve, 3500));
      const activitySince = new Date(earlierAt - 50).toISOString();
      await shortKit.outcomes.items.record(runId, workloadId, {
        status: 'succeeded',
        target: workloadId,
        platformJobId: `activity@${activitySince}`,
        finishedAt: new Date(),
        details: {
          trackedVia: 'activity',
          activitySince,
          jobIdFrom: 'events',
          triggeredAt: new Date(earlierAt).toISOString(),
        },
      });
      // Our first attempt 1 s later: the border (half way) falls before their snapshot's date.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const found = await findEarlierTrigger({
        platform: shortClient,
        queries: shortKit.queries,
        logger: silentLogger(),
        runId: 'ours@20261124T040000Z',
        workload,
        since: Date.now(),
      });
      // Adopting it would record this run's workload as snapshotted with no snapshot taken.
      expect(found).toBeUndefined();
    });
  });
});

/**
 * On GraphQL a trigger whose job ended leaves two traces: its activity series and its snapshot.
 * They are one trigger: adopting it is not a double trigger, and warning of one there (as paw
 * did, on every such adoption) buried the warning meant for a real double.
 */
describe('findEarlierTrigger through GraphQL, after the job ended', () => {
  let kit: WorkerTestKit;
  let client: PlatformClient;

  beforeAll(async () => {
    kit = await startWorkerTestKit(
      {
        workloads: 10,
        seed: 6,
        timeScale: 600,
        vocabulary: 'graphql',
        jobs: { durationSeconds: { median: 60, sigma: 0.01, min: 60 }, queuedSeconds: 0 },
      },
      'reconcile-graphql',
    );
    client = await createPlatformClient({
      settings: kit.settings({ platform: { api: 'graphql' } }),
      logger: silentLogger(),
    });
  });
  afterAll(async () => {
    await client?.close();
    await kit?.close();
  });

  async function findAfterJobsEnded(workloadId: string, triggers: number) {
    const workload = await client.api.workloads.get(workloadId);
    const since = Date.now();
    const jobs: SnapshotTracking[] = [];
    for (let count = 0; count < triggers; count++) {
      jobs.push((await client.api.workloads.takeSnapshot(workload)).tracking);
    }
    await eventually('the jobs to end', async () => {
      const read = await Promise.all(
        jobs.map((tracking) => client.api.workloads.readSnapshotJob(tracking)),
      );
      return read.every((job) => job.endTime !== undefined);
    });
    const logs = captureLogs('info');
    const found = await findEarlierTrigger({
      platform: client,
      queries: kit.queries,
      logger: logs.logger,
      runId: `ours-${triggers}@20261124T020000Z`,
      workload,
      since,
    });
    const warnings = logs
      .records()
      .filter((record) => String(record['msg']).includes('double trigger'));
    return { found, warnings };
  }

  it('one trigger, its activity and its snapshot: adopted without a warning', async () => {
    const { found, warnings } = await findAfterJobsEnded(
      kit.sim.fixtures().workloads.samples.vsphereVm ?? '',
      1,
    );
    expect(found).toMatchObject({ found: 'tracking', others: 0 });
    expect(warnings).toEqual([]);
  });

  it('two triggers: a double trigger, and paw says so', async () => {
    const { found, warnings } = await findAfterJobsEnded(
      kit.sim.fixtures().workloads.samples.mssqlDatabase ?? '',
      2,
    );
    expect(found).toMatchObject({ others: 1 });
    expect(warnings).toHaveLength(1);
  });
});
