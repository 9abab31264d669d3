import type { ItemUpdate } from '../../outcomes/outcome-records.js';
import { hasEnded } from '../../platform/jobs/job-status.js';
import type { SnapshotJob } from '../../platform/jobs/snapshot-job.js';

/** The final outcome of a job, or undefined while it may still be running. */
export function endOf(
  job: SnapshotJob,
): Pick<ItemUpdate, 'status' | 'errorCode' | 'errorMessage' | 'reason'> | undefined {
  if (!hasEnded(job)) return undefined;
  switch (job.phase) {
    case 'succeeded':
      return { status: 'succeeded', errorCode: null, errorMessage: null };
    case 'failed':
      return {
        status: 'failed',
        errorCode: 'SNAPSHOT_FAILED',
        errorMessage:
          job.errorMessage ?? `the platform reports the job ${job.status} without a message`,
      };
    case 'canceled':
      return {
        status: 'canceled',
        errorCode: 'SNAPSHOT_CANCELED',
        errorMessage: job.errorMessage ?? `the platform reports the job ${job.status}`,
      };
    default:
      // Ended (it has an end time) with a status paw does not know: not called a success.
      return {
        status: 'failed',
        errorCode: 'UNRECOGNISED_STATUS',
        errorMessage:
          `the job ended with status "${job.status}", which paw does not know; ` +
          'check the snapshot on the platform, and add the word to platform.vocabulary.jobStatuses' +
          (job.errorMessage === undefined ? '' : ` (platform message: ${job.errorMessage})`),
        reason: `unrecognised platform status ${job.status}`,
      };
  }
}
