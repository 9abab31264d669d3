import { describe, expect, it } from 'vitest';
import { lowerBound } from './lower-bound.js';
import {
  nightInventory,
  nightSettings,
  qualifyingWorkloads,
  simulatorOptions,
} from './night-simulator-settings.js';
import { SimulatorClock } from '../../src/simulator/clock.js';
import { EventLog } from '../../src/simulator/event-log.js';
import { simulatorOptionsSchema } from '../../src/simulator/options.js';
import { SeededRandom } from '../../src/simulator/seeded-random.js';
import { SnapshotJobEngine } from '../../src/simulator/snapshot-jobs.js';

describe('the nightly benchmark’s lower bound', () => {
  const base = { requestsPerSecond: 10, burst: 2, concurrencyPerCluster: 2, queuedMs: 100 };

  it('is the request limit when the jobs are short: (2·N − burst) / rate', () => {
    const jobs = Array.from({ length: 20 }, (_, index) => ({
      clusterId: `c${index % 4}`,
      runMs: 1,
    }));
    const bound = lowerBound({ ...base, jobs });
    expect(bound.requestsSeconds).toBeCloseTo((40 - 2) / 10);
    expect(bound.seconds).toBe(bound.requestsSeconds);
  });

  it('replays each cluster’s slots in trigger order with the earliest triggers', () => {
    // One cluster, two slots. Triggers at 0, 0, 0.1, 0.2 s (burst 2, then 10 per second).
    // Job 1: 0 + 0.1 → ends 1.1 s; job 2: 0.1 → 0.6 s; job 3 waits for job 2's slot
    // (0.6 s) → 1.6 s; job 4 waits for job 1's slot (1.1 s) → 1.3 s.
    const jobs = [
      { clusterId: 'a', runMs: 1000 },
      { clusterId: 'a', runMs: 500 },
      { clusterId: 'a', runMs: 1000 },
      { clusterId: 'a', runMs: 200 },
    ];
    const bound = lowerBound({ ...base, jobs });
    expect(bound.snapshotsSeconds).toBeCloseTo(1.6);
    expect(bound.seconds).toBeCloseTo(1.6);
  });

  it('lets clusters run side by side', () => {
    const jobs = [
      { clusterId: 'a', runMs: 1000 },
      { clusterId: 'b', runMs: 1000 },
      { clusterId: 'c', runMs: 1000 },
    ];
    // The third trigger waits for the bucket (0.1 s), not for a slot.
    expect(lowerBound({ ...base, jobs }).snapshotsSeconds).toBeCloseTo(1.2);
  });
});

describe('the lower bound at the headroom night’s settings (500 requests/s, 320 slots)', () => {
  const settings = nightSettings(4_000, 20, 500);
  const options = simulatorOptionsSchema.parse(
    simulatorOptions(settings, nightInventory(settings).workloads),
  );
  const workloads = qualifyingWorkloads(settings, options.workloads);

  /** The simulator's own job engine, each trigger at the time `at(k)` gives (k from 1), in ms. */
  function night(at: (k: number) => number) {
    let now = 0;
    const clock = new SimulatorClock(options.timeScale, () => now);
    const engine = new SnapshotJobEngine(
      clock,
      options.jobs,
      new SeededRandom(options.seed),
      new EventLog(clock),
    );
    workloads.forEach((workload, index) => {
      now = at(index + 1);
      engine.trigger(workload, null);
    });
    const jobs = [...engine.all()];
    const bound = lowerBound({
      jobs: jobs.map((job) => ({
        clusterId: job.workload.cluster.id,
        runMs: job.endAt - job.startAt,
      })),
      requestsPerSecond: settings.requestsPerSecond,
      burst: settings.burst,
      concurrencyPerCluster: options.jobs.concurrencyPerCluster,
      queuedMs: clock.realMs(options.jobs.queuedSeconds),
    });
    return { bound, lastEndMs: Math.max(...jobs.map((job) => job.endAt)) };
  }
  const earliest = (k: number) =>
    (Math.max(0, k - settings.burst) / settings.requestsPerSecond) * 1000;

  it('is the simulator’s own schedule when every trigger comes at the earliest the bucket allows', () => {
    expect(options.jobs.concurrencyPerCluster).toBe(320);
    const { bound, lastEndMs } = night(earliest);
    // 4,000 jobs on 1,280 slots: the slots, not the requests, bound this night.
    expect(bound.requestsSeconds).toBeCloseTo((2 * 4_000 - 500) / 500);
    expect(bound.snapshotsSeconds).toBeGreaterThan(bound.requestsSeconds);
    expect(bound.snapshotsSeconds * 1000).toBeCloseTo(lastEndMs, 6);
  });

  it('never exceeds a night whose triggers come later (slower, or late by a random amount)', () => {
    const jitter = new SeededRandom(5);
    const nights = [
      night((k) => earliest(k) * 1.25),
      night((k) => earliest(k) + 20 * jitter.next()),
      night((k) => earliest(k) + 100),
    ];
    for (const { bound, lastEndMs } of nights)
      expect(bound.snapshotsSeconds * 1000).toBeLessThanOrEqual(lastEndMs);
  });

  it('counts 2·N requests at 500/s for the 100,000-snapshot night: 399 s', () => {
    const jobs = Array.from({ length: 100_000 }, (_, index) => ({
      clusterId: `c${index % 4}`,
      runMs: 1,
    }));
    const bound = lowerBound({
      requestsPerSecond: 500,
      burst: 500,
      concurrencyPerCluster: 320,
      queuedMs: 100,
      jobs,
    });
    expect(bound.requestsSeconds).toBeCloseTo(399);
  });

  it('moves by the shortest latency: the platform acts on a request only once it arrived', () => {
    const jobs = Array.from({ length: 10_000 }, (_, index) => ({
      clusterId: `c${index % 4}`,
      runMs: 3_000,
    }));
    const rate = { requestsPerSecond: 40, burst: 40, concurrencyPerCluster: 32, queuedMs: 100 };
    const fast = lowerBound({ ...rate, jobs });
    const slow = lowerBound({ ...rate, jobs, minLatencyMs: 300 });
    expect(fast.requestsSeconds).toBeCloseTo(499);
    expect(slow.requestsSeconds).toBeCloseTo(499.3);
    expect(slow.snapshotsSeconds).toBeCloseTo(fast.snapshotsSeconds + 0.3);
  });
});
