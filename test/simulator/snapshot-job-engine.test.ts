import { describe, expect, it } from 'vitest';
import { SimulatorClock } from '../../src/simulator/clock.js';
import { EventLog } from '../../src/simulator/event-log.js';
import { jobOptionsSchema, type JobOptions } from '../../src/simulator/options.js';
import type { SimCluster, SimWorkload } from '../../src/simulator/records.js';
import { SeededRandom } from '../../src/simulator/seeded-random.js';
import { SnapshotJobEngine } from '../../src/simulator/snapshot-jobs.js';

// Time is the subject here, so the clock is a variable the test moves.
function setup(options: Partial<JobOptions> = {}, timeScale = 1) {
  let now = 1_700_000_000_000;
  const clock = new SimulatorClock(timeScale, () => now);
  const events = new EventLog(clock);
  const engine = new SnapshotJobEngine(
    clock,
    jobOptionsSchema.parse({ failureRate: 0, cancelRate: 0, queuedSeconds: 2, ...options }),
    new SeededRandom(1),
    events,
  );
  const cluster: SimCluster = {
    id: 'c1',
    name: 'cl',
    type: 'OnPrem',
    connectionState: 'Connected',
    version: '9.6.1',
    nodeCount: 2,
  };
  const workload = (id: string): SimWorkload => ({
    id,
    name: `prod-web-${id}`,
    type: 'VSPHERE_VM',
    cluster,
    slaDomainId: null,
    initialSlaDomainId: null,
    historySeed: 1,
  });
  return {
    engine,
    events,
    workload,
    start: now,
    advanceTo: (ms: number) => {
      now = ms;
    },
  };
}

const fixed = { median: 100, sigma: 0, min: 1 };

describe('the snapshot job engine', () => {
  it('moves a job through QUEUED, ACQUIRING, RUNNING, FINISHING and SUCCEEDED with rising progress', () => {
    const { engine, workload, start, advanceTo } = setup({ durationSeconds: fixed });
    const job = engine.trigger(workload('w1'), null);
    expect(job.startAt).toBe(start + 2000);
    expect(job.endAt).toBe(start + 2000 + 100_000);
    const at = (offset: number) => {
      advanceTo(start + offset);
      return engine.stateOf(job);
    };
    expect(at(0)).toMatchObject({ status: 'QUEUED', progress: 0, startTime: null, endTime: null });
    expect(at(2000)).toMatchObject({ status: 'ACQUIRING', progress: 0, startTime: start + 2000 });
    expect(at(2000 + 6000).status).toBe('RUNNING');
    const early = at(2000 + 20_000).progress;
    const late = at(2000 + 80_000).progress;
    expect(early).toBeGreaterThan(0);
    expect(late).toBeGreaterThan(early);
    expect(at(2000 + 95_000)).toMatchObject({ status: 'FINISHING', progress: 99 });
    expect(at(2000 + 100_000)).toMatchObject({
      status: 'SUCCEEDED',
      progress: 100,
      endTime: start + 102_000,
      error: null,
      snapshotId: job.snapshotId,
    });
    expect(engine.snapshotsOf('w1')).toEqual([
      expect.objectContaining({ id: job.snapshotId, isOnDemand: true, date: job.endAt }),
    ]);
  });

  it('runs at most concurrencyPerCluster jobs at once; the rest wait for the earliest free slot', () => {
    const { engine, workload, start } = setup({ durationSeconds: fixed, concurrencyPerCluster: 3 });
    const jobs = Array.from({ length: 7 }, (_, index) =>
      engine.trigger(workload(`w${index}`), null),
    );
    expect(jobs.map((job) => job.startAt - start)).toEqual([
      2000, 2000, 2000, 102_000, 102_000, 102_000, 202_000,
    ]);
    expect(new Set(jobs.slice(0, 3).map((job) => job.nodeId)).size).toBe(2);
  });

  it('shrinks durations by the time scale, never timestamps', () => {
    const { engine, workload, start } = setup({ durationSeconds: fixed }, 1000);
    const job = engine.trigger(workload('w1'), null);
    expect(job.triggeredAt).toBe(start);
    expect(job.startAt).toBe(start + 2);
    expect(job.endAt).toBe(start + 2 + 100);
  });

  it('fails or cancels at the configured rates, with an error, no snapshot and frozen progress', () => {
    const failing = setup({ durationSeconds: fixed, failureRate: 1 });
    const failed = failing.engine.trigger(failing.workload('w1'), null);
    failing.advanceTo(failed.endAt);
    const state = failing.engine.stateOf(failed);
    expect(state.status).toBe('FAILED');
    expect(state.error?.message).toEqual(expect.any(String));
    expect(state.progress).toBeLessThan(100);
    expect(state.snapshotId).toBeNull();
    expect(failing.engine.snapshotsOf('w1')).toEqual([]);

    const canceling = setup({ durationSeconds: fixed, cancelRate: 1 });
    const canceled = canceling.engine.trigger(canceling.workload('w1'), null);
    canceling.advanceTo(canceled.startAt + (canceled.cancelRequestedAt ?? 0) + 1);
    expect(canceling.engine.stateOf(canceled).status).toBe('CANCELING');
    canceling.advanceTo(canceled.endAt);
    expect(canceling.engine.stateOf(canceled)).toMatchObject({
      status: 'CANCELED',
      snapshotId: null,
    });
  });

  it('draws durations from the lognormal, above the minimum', () => {
    const { engine, workload } = setup({
      durationSeconds: { median: 120, sigma: 0.5, min: 30 },
      concurrencyPerCluster: 10_000,
    });
    const durations = Array.from(
      { length: 2000 },
      (_, index) => engine.trigger(workload(`w${index}`), null).durationMs / 1000,
    );
    durations.sort((a, b) => a - b);
    expect(durations[0]).toBeGreaterThanOrEqual(30);
    const median = durations[1000] ?? 0;
    expect(median).toBeGreaterThan(105);
    expect(median).toBeLessThan(135);
  });

  it('emits queued, running and end events only once their time has come', () => {
    const { engine, events, workload, advanceTo } = setup({ durationSeconds: fixed });
    const job = engine.trigger(workload('w1'), null);
    expect(events.happened().map((event) => event.status)).toEqual(['QUEUED']);
    advanceTo(job.startAt);
    expect(events.happened().map((event) => event.status)).toEqual(['QUEUED', 'RUNNING']);
    advanceTo(job.endAt);
    expect(events.happened().map((event) => event.status)).toEqual([
      'QUEUED',
      'RUNNING',
      'SUCCESS',
    ]);
  });

  it('queues a night of 10,000 jobs on one cluster in slot order, without timers', () => {
    const { engine, workload, start, advanceTo } = setup({
      durationSeconds: fixed,
      concurrencyPerCluster: 32,
    });
    const jobs = Array.from({ length: 10_000 }, (_, index) =>
      engine.trigger(workload(`w${index}`), null),
    );
    const last = jobs.at(-1);
    expect(last?.startAt).toBe(start + 2000 + Math.floor(9999 / 32) * 100_000);
    advanceTo(start + 2000 + 100_000 * 10);
    expect(engine.countByStatus()).toEqual({ SUCCEEDED: 320, ACQUIRING: 32, QUEUED: 10_000 - 352 });
  });

  it('counts jobs by status', () => {
    const { engine, workload, advanceTo } = setup({
      durationSeconds: fixed,
      concurrencyPerCluster: 1,
    });
    const first = engine.trigger(workload('a'), null);
    engine.trigger(workload('b'), null);
    advanceTo(first.startAt + 50_000);
    expect(engine.countByStatus()).toEqual({ RUNNING: 1, QUEUED: 1 });
  });
});
