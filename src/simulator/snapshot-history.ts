import {
  frequencyMs,
  retentionMs,
  type SimSlaDomain,
  type SimSnapshot,
  type SimWorkload,
} from './records.js';
import { SeededRandom } from './seeded-random.js';

/**
 * The scheduled snapshots a protected workload already had when the simulator started. They are
 * derived from the workload's seed and its SLA Domain at inventory time whenever they are read,
 * instead of being stored: 100,000 workloads would otherwise hold half a million records.
 */
export function scheduledSnapshots(
  workload: SimWorkload,
  initialDomain: Pick<SimSlaDomain, 'id' | 'frequency' | 'retention'> | undefined,
  inventoryEpoch: number,
): SimSnapshot[] {
  if (initialDomain === undefined) return [];
  const random = new SeededRandom(workload.historySeed);
  const count = 1 + (workload.historySeed % 4);
  const period = frequencyMs(initialDomain.frequency);
  const offset = random.next() * Math.min(period, 3_600_000);
  const keep = retentionMs(initialDomain.retention);
  const snapshots: SimSnapshot[] = [];
  for (let index = 0; index < count; index++) {
    const date = Math.floor(inventoryEpoch - offset - index * period);
    snapshots.push({
      id: random.uuid(),
      workloadId: workload.id,
      date,
      isOnDemand: false,
      slaDomainId: initialDomain.id,
      expirationDate: date + keep,
      jobId: null,
    });
  }
  return snapshots;
}
