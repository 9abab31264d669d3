import { describe, expect, it } from 'vitest';
import { lanesFor } from '../../../../src/job-kinds/snapshot/lanes/snapshot-lane-job.js';
import { settingsSchema } from '../../../../src/config/settings-schema.js';

const defaults = settingsSchema.parse({}).worker;
const sizing = (requestsPerSecond: number) => ({
  laneSize: defaults.snapshotLaneSize,
  laneRequestsPerSecond: defaults.snapshotLaneRequestsPerSecond,
  requestsPerSecond,
});

describe('how many lanes a snapshot run gets', () => {
  it('gives a big run at a low platform rate one lane: more would only wake more processes for less work each', () => {
    expect(lanesFor(10_000, sizing(50))).toBe(1);
    expect(lanesFor(100_000, sizing(50))).toBe(1);
  });

  it('splits a big run by the rate, one lane per share of it', () => {
    expect(lanesFor(100_000, sizing(500))).toBe(2);
    expect(lanesFor(100_000, sizing(1_000))).toBe(4);
  });

  it('gives a run no more than one lane per lane size of its workloads, rounded up, however high the rate', () => {
    expect(lanesFor(3, sizing(10_000))).toBe(1);
    expect(lanesFor(defaults.snapshotLaneSize + 1, sizing(10_000))).toBe(2);
  });

  it('has at least one lane and at most sixteen', () => {
    expect(lanesFor(0, sizing(50))).toBe(1);
    expect(
      lanesFor(1_000_000, { laneSize: 1, laneRequestsPerSecond: 1, requestsPerSecond: 1_000 }),
    ).toBe(16);
  });
});
