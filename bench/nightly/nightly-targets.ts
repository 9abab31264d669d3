import type { ContenderResult } from './contender-result.js';

/** The targets for paw at N = 10,000, checked against what was measured. */
export function pawTargets(
  contenders: readonly ContenderResult[],
): { target: string; met: boolean; measured: string }[] {
  const paw = contenders.find((contender) => contender.name === 'paw');
  const concurrent = contenders.find((contender) => contender.name === 'concurrent');
  if (paw === undefined) return [];
  const targets = [
    {
      target: 'makespan within 1.15 of the lower bound',
      met: (paw.lowerBoundRatio ?? Infinity) <= 1.15,
      measured: `${(paw.lowerBoundRatio ?? NaN).toFixed(3)}×`,
    },
    {
      target: 'at most 2.5 requests per snapshot',
      met: paw.requestsPerSnapshot <= 2.5,
      measured: paw.requestsPerSnapshot.toFixed(2),
    },
    {
      target: 'no 429 beyond the first few (≤ 5)',
      met: paw.rateLimited <= 5,
      measured: String(paw.rateLimited),
    },
    {
      target: 'under 2 ms of CPU per snapshot job',
      met: paw.cpuMsPerSnapshot < 2,
      measured: `${paw.cpuMsPerSnapshot.toFixed(2)} ms (${paw.processes} processes)`,
    },
    {
      target: 'under 250 MB per worker process',
      met: paw.peakRssMb < 250,
      measured: `${paw.peakRssMb.toFixed(0)} MB peak`,
    },
  ];
  if (concurrent !== undefined) {
    const speedup = concurrent.makespanSeconds / paw.makespanSeconds;
    targets.splice(3, 0, {
      target: 'at least 5 times faster than the concurrent script',
      met: speedup >= 5,
      measured: `${speedup.toFixed(1)}×`,
    });
  }
  return targets;
}
