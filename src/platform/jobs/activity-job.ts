import { isTerminal } from './job-status.js';
import type { SnapshotJob } from './snapshot-job.js';
import { trackedId, type SnapshotTracking } from './snapshot-tracking.js';

/**
 * The job of a snapshot followed through its activity (no job id known), in the shape of a job
 * record: the activity's status word and phase, its end time once the phase is final.
 */
export function activityJob(
  tracking: Extract<SnapshotTracking, { via: 'activity' }>,
  status: string,
  phase: SnapshotJob['phase'],
  time: string | undefined,
  message: string | undefined,
): SnapshotJob {
  return {
    id: trackedId(tracking),
    status,
    phase,
    workloadId: tracking.workloadId,
    progress: undefined,
    startTime: tracking.since,
    endTime: isTerminal(phase) ? time : undefined,
    nodeId: undefined,
    errorMessage: phase === 'failed' || phase === 'canceled' ? message : undefined,
    snapshotId: undefined,
    links: [],
  };
}
