import type { SimSnapshot, SimWorkload } from './records.js';
import type { SimulatorState } from './simulator-state.js';
import { scheduledSnapshots } from './snapshot-history.js';

/**
 * A workload's snapshots, newest first (date, then id descending): its scheduled history and
 * the on-demand snapshots of its finished jobs. Both interfaces list them from here.
 */
export function snapshotsOfWorkload(state: SimulatorState, workload: SimWorkload): SimSnapshot[] {
  const initial =
    workload.initialSlaDomainId === null
      ? undefined
      : state.initialSlaDomains.get(workload.initialSlaDomainId);
  return [
    ...scheduledSnapshots(workload, initial, state.inventoryEpoch),
    ...state.jobs.snapshotsOf(workload.id),
  ].sort((a, b) => b.date - a.date || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}
