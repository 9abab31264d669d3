import { describe, expect, it } from 'vitest';
import {
  findSmallestCount,
  nightInventory,
  nightSettings,
  qualifyingWorkloads,
} from './night-simulator-settings.js';
import { SeededRandom } from '../../src/simulator/seeded-random.js';

describe('the nightly benchmark’s night', () => {
  it('scales the burst and the clusters’ slots with the platform’s rate', () => {
    const base = nightSettings(10_000, 20);
    expect(base).toMatchObject({ requestsPerSecond: 50, burst: 50, concurrencyPerCluster: 32 });
    const headroom = nightSettings(100_000, 20, 500);
    expect(headroom).toMatchObject({
      snapshots: 100_000,
      requestsPerSecond: 500,
      burst: 500,
      concurrencyPerCluster: 320,
    });
    // Everything else is the same night.
    expect(headroom.durationSeconds).toEqual(base.durationSeconds);
    expect(headroom.latency).toEqual(base.latency);
  });

  it('keeps the slots and the rate limit balanced at every rate: neither hides the other', () => {
    const { clusterIds } = nightInventory(nightSettings(300, 20));
    expect(clusterIds).toHaveLength(4);
    for (const rate of [50, 100, 500, 1000]) {
      const settings = nightSettings(10_000, 20, rate);
      const { median, sigma } = settings.durationSeconds;
      // A lognormal's mean; real seconds at the time scale.
      const meanRealSeconds = (median * Math.exp((sigma * sigma) / 2)) / settings.timeScale;
      const snapshotsPerSecond =
        (clusterIds.length * settings.concurrencyPerCluster) / meanRealSeconds;
      // What the rate limit allows a client that triggers each job and reads it once.
      const allowedPerSecond = rate / 2;
      expect(snapshotsPerSecond / allowedPerSecond).toBeGreaterThan(0.95);
      expect(snapshotsPerSecond / allowedPerSecond).toBeLessThan(1.15);
    }
  });

  it('finds the smallest inventory with exactly N qualifying workloads', () => {
    for (const snapshots of [1, 300, 2_000]) {
      const settings = nightSettings(snapshots, 20);
      const inventory = nightInventory(settings);
      expect(inventory.workloadIds).toHaveLength(snapshots);
      const atCount = qualifyingWorkloads(settings, inventory.workloads);
      expect(atCount.map((workload) => workload.id)).toEqual(inventory.workloadIds);
      expect(qualifyingWorkloads(settings, inventory.workloads - 1)).toHaveLength(snapshots - 1);
    }
  });

  it('searches as a linear scan would, in a few evaluations', () => {
    const random = new SeededRandom(12);
    for (let trial = 0; trial < 300; trial++) {
      // A count that grows by 0 or 1 per step, with a share of ones between 20% and 100% (the
      // night's is about two thirds: VMs and databases on the Connected clusters).
      const share = 0.2 + 0.8 * random.next();
      const steps = new SeededRandom(trial);
      const prefix = [0];
      const countAt = (m: number): number => {
        while (prefix.length <= m)
          prefix.push((prefix.at(-1) ?? 0) + (steps.next() < share ? 1 : 0));
        return prefix[m] ?? 0;
      };
      const target = random.int(1, 20_000);
      let expected = target;
      while (countAt(expected) < target) expected++;
      let evaluations = 0;
      const result = findSmallestCount(target, (m) => {
        evaluations++;
        return Array.from({ length: countAt(m) }, (_, index) => index);
      });
      expect(result.count).toBe(expected);
      expect(result.found).toHaveLength(target);
      expect(result.evaluations).toBe(evaluations);
      expect(evaluations).toBeLessThanOrEqual(16);
    }
  });
});
