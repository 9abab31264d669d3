import { describe, expect, it } from 'vitest';
import { lowerBound } from '../../bench/nightly/lower-bound.js';

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
