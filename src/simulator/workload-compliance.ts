import { frequencyMs, type SimWorkload } from './records.js';
import type { SimulatorState } from './simulator-state.js';
import { snapshotsOfWorkload } from './workload-snapshots.js';

/** The values of the schema's `ComplianceStatusEnum` the simulator's workloads can have. */
export type ComplianceStatus =
  'IN_COMPLIANCE' | 'OUT_OF_COMPLIANCE' | 'UNPROTECTED' | 'NOT_AVAILABLE';

/**
 * Whether a workload has the snapshots its SLA Domain asks for, judged by its last snapshot (the
 * schema's `LAST_SNAPSHOT` time range): in compliance when it is at most one SLA period old.
 * The simulator takes no scheduled snapshots while it runs, so a protected workload falls out of
 * compliance one period after start unless someone takes an on-demand snapshot of it.
 */
export function complianceOf(state: SimulatorState, workload: SimWorkload): ComplianceStatus {
  const domain =
    workload.slaDomainId === null ? undefined : state.slaDomains.get(workload.slaDomainId);
  if (domain === undefined) return 'UNPROTECTED';
  const latest = snapshotsOfWorkload(state, workload)[0];
  // Protected but never snapshotted: awaiting its first full snapshot.
  if (latest === undefined) return 'NOT_AVAILABLE';
  return state.clock.now() - latest.date <= frequencyMs(domain.frequency)
    ? 'IN_COMPLIANCE'
    : 'OUT_OF_COMPLIANCE';
}
