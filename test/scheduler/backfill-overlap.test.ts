import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CronSchedule } from '../../src/definitions/schedule/cron-schedule.js';
import { runIdFor } from '../../src/queue/run-id.js';
import { runPaw } from '../testkit/paw-process.js';
import { startWorkerTestKit, type WorkerTestKit } from '../testkit/worker-kit.js';
import { eventually } from '../testkit/eventually.js';

interface BackfillReport {
  times: number;
  enqueued: number;
  existing: number;
  skipped: number;
  fires: { fireTime: string; runId: string; result: string; reason?: string }[];
}

const HOURLY = (clusterIds: readonly string[]) => `
id: hourly
kind: snapshot
schedule: { cron: "0 * * * *" }
targets: { types: [VSPHERE_VM], clusterIds: [${clusterIds.join(', ')}] }
keepForever: true
`;

/**
 * A backfill is the operator asking for those times: under `overlap: skip` each runs after the
 * one before it (not skipped because the one before is still queued), and a time that was
 * skipped or missed has had no run: a backfill runs it.
 */
describe('paw backfill under overlap: skip (real processes against the simulator)', () => {
  let kit: WorkerTestKit;
  beforeAll(async () => {
    kit = await startWorkerTestKit({ workloads: 12, seed: 8, timeScale: 600 }, 'backfill-overlap');
    const connected = kit.sim.clusters
      .filter((cluster) => cluster.connectionState === 'Connected')
      .map((cluster) => cluster.id);
    await kit.writeJobs(HOURLY(connected));
  });
  afterAll(() => kit.close());

  const backfill = async (...range: string[]): Promise<BackfillReport> => {
    const result = await runPaw(['backfill', 'hourly', ...range, '--json'], {
      env: kit.env(),
      cwd: kit.dir,
    });
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as BackfillReport;
  };

  it('enqueues every time, runs them one after another, and finds them all the second time', async () => {
    // One range for both backfills: `4h`/`1h` are read from the clock at each call, and two
    // calls either side of an hour's start (seen at 11:00) cover different times.
    const now = Date.now();
    const range = [
      '--from',
      new Date(now - 4 * 3_600_000).toISOString(),
      '--to',
      new Date(now - 3_600_000).toISOString(),
    ];
    const first = await backfill(...range);
    expect(first.times).toBeGreaterThanOrEqual(3);
    expect(first.fires.map((fire) => fire.result)).toEqual(first.fires.map(() => 'enqueued'));
    expect(first).toMatchObject({ enqueued: first.times, skipped: 0 });

    // The snapshot queue runs 20 jobs at once: nothing but the backfill keeps the runs apart.
    const worker = await kit.startInProcessWorker();
    try {
      const runs = await Promise.all(first.fires.map((fire) => kit.waitForRun(fire.runId)));
      expect(runs.map((run) => run.status)).toEqual(runs.map(() => 'succeeded'));
      // One after another, in the order of their times: each started after the one before ended.
      for (let index = 1; index < runs.length; index++) {
        const before = runs[index - 1];
        const run = runs[index];
        expect(Date.parse(run?.startedAt ?? ''), run?.runId).toBeGreaterThanOrEqual(
          Date.parse(before?.finishedAt ?? ''),
        );
      }
    } finally {
      await worker.stop();
    }

    const again = await backfill(...range);
    expect(again).toMatchObject({ times: first.times, enqueued: 0, existing: first.times });
  }, 180_000);

  it('runs a time that was skipped or missed, next to the record of what happened then', async () => {
    const schedule = CronSchedule.create('0 * * * *', 'UTC');
    const now = Date.now();
    const [skippedTime, missedTime] = schedule.firesBetween(
      new Date(now - 9 * 3_600_000),
      new Date(now - 7 * 3_600_000),
    );
    if (skippedTime === undefined || missedTime === undefined) throw new Error('no hours');
    const base = { definitionId: 'hourly', kind: 'snapshot' as const, trigger: 'cron' as const };
    await kit.outcomes.runs.create({
      ...base,
      runId: runIdFor('hourly', skippedTime, 'cron'),
      fireTime: skippedTime,
      status: 'skipped',
      reason: 'the previous run hourly@20261126T000000Z is still queued (overlap: skip)',
    });
    await kit.outcomes.runs.create({
      ...base,
      runId: runIdFor('hourly', missedTime, 'catch-up'),
      fireTime: missedTime,
      trigger: 'catch-up',
      status: 'missed',
      reason: 'no scheduler handled it until 3h after its time',
    });

    const report = await backfill(
      '--from',
      skippedTime.toISOString(),
      '--to',
      missedTime.toISOString(),
    );
    expect(report).toMatchObject({ times: 2, enqueued: 2, existing: 0, skipped: 0 });
    // The record of what happened at the time stays; the backfill's run is its own.
    const ids = report.fires.map((fire) => fire.runId);
    expect(ids).toEqual([
      `${runIdFor('hourly', skippedTime, 'cron')}-backfill`,
      `${runIdFor('hourly', missedTime, 'cron')}-backfill`,
    ]);
    expect((await kit.outcomes.runs.get(runIdFor('hourly', skippedTime, 'cron')))?.status).toBe(
      'skipped',
    );

    const worker = await kit.startInProcessWorker();
    try {
      for (const runId of ids) expect((await kit.waitForRun(runId)).status).toBe('succeeded');
    } finally {
      await worker.stop();
    }
    const again = await backfill(
      '--from',
      skippedTime.toISOString(),
      '--to',
      missedTime.toISOString(),
    );
    expect(again).toMatchObject({ times: 2, enqueued: 0, existing: 2 });
    await eventually('nothing else was queued', async () =>
      (await kit.queries.listRuns({ definitionId: 'hourly', limit: 100 })).every(
        (run) => run.status !== 'queued',
      ),
    );
  }, 180_000);
});
