import type { Logger } from '../../log/logger.js';
import type { OutcomeQueries } from '../../outcomes/outcome-queries.js';
import { NotFoundError } from '../../platform/http/platform-errors.js';
import type { SnapshotJob } from '../../platform/jobs/snapshot-job.js';
import type { PlatformClient } from '../../platform/platform-client.js';

/**
 * Events are looked up from this long before the first trigger attempt: the attempt's time is
 * this worker's clock, the events' the platform's.
 */
export const CLOCK_SKEW_ALLOWANCE_MS = 30_000;

/**
 * A trigger that may have reached the platform is looked for only once this long has passed
 * since it was sent, so that its QUEUED event has had time to appear.
 */
export const EVENT_SETTLE_MS = 5_000;

/** How many of the workload's most recent items (other runs) are read for job ids they own. */
const CLAIMED_ITEMS_READ = 100;

export interface ReconcileRequest {
  readonly platform: PlatformClient;
  readonly queries: OutcomeQueries;
  readonly logger: Logger;
  readonly runId: string;
  readonly workloadId: string;
  /** The first trigger attempt of this item (epoch ms, this worker's clock). */
  readonly since: number;
  readonly signal?: AbortSignal | undefined;
}

/** The platform job an earlier trigger attempt started. */
export interface ReconciledTrigger {
  readonly jobId: string;
  /** Its current record (read through the job-status route). */
  readonly job: SnapshotJob;
  /** When its first event says it was queued (platform clock). */
  readonly queuedAt: string;
  /** Other jobs that also look like ours: a double trigger happened before (logged). */
  readonly others: readonly string[];
}

/**
 * Finds out whether an earlier attempt's snapshot trigger reached the platform although its
 * answer was never recorded (the worker died, or the call timed out). The workload's BACKUP
 * events since the attempt carry the job id of every snapshot job started on it; jobs that
 * another run's item already recorded as its own are not ours; of the rest the earliest is taken
 * and its job record read to confirm it exists. `undefined` means no trace: triggering again is
 * safe.
 */
export async function findEarlierTrigger(
  request: ReconcileRequest,
): Promise<ReconciledTrigger | undefined> {
  const { platform, workloadId, signal } = request;
  const claimed = await jobIdsOwnedByOtherItems(request);

  const firstSeen = new Map<string, string>();
  const startTime = new Date(request.since - CLOCK_SKEW_ALLOWANCE_MS).toISOString();
  for await (const event of platform.rest.events.list(
    { objectId: workloadId, type: 'BACKUP', startTime },
    signal,
  )) {
    const jobId = event.jobId;
    if (jobId == null || jobId === '' || event.objectId !== workloadId) continue;
    if (claimed.has(jobId)) continue;
    const earlier = firstSeen.get(jobId);
    if (earlier === undefined || Date.parse(event.time) < Date.parse(earlier)) {
      firstSeen.set(jobId, event.time);
    }
  }
  const candidates = [...firstSeen.entries()].sort(([, a], [, b]) => Date.parse(a) - Date.parse(b));

  for (const [jobId, queuedAt] of candidates) {
    let job: SnapshotJob;
    try {
      job = await platform.rest.workloads.snapshotJob(
        platform.rest.workloads.jobHandleFor(workloadId, jobId),
        signal,
      );
    } catch (error) {
      if (error instanceof NotFoundError) continue; // an event of a job the platform forgot
      throw error;
    }
    const others = candidates.map(([id]) => id).filter((id) => id !== jobId);
    if (others.length > 0) {
      request.logger.warn(
        { workloadId, jobId, others },
        'more than one unclaimed snapshot job since the first trigger attempt; adopting the earliest',
      );
    }
    return { jobId, job, queuedAt, others };
  }
  return undefined;
}

/** Platform job ids recorded by the workload's items in other runs (or other items). */
async function jobIdsOwnedByOtherItems(request: ReconcileRequest): Promise<Set<string>> {
  const owned = new Set<string>();
  let read = 0;
  for await (const item of request.queries.items({
    target: request.workloadId,
    order: 'newest-first',
  })) {
    if (++read > CLAIMED_ITEMS_READ) break;
    if (item.runId === request.runId && item.itemKey === request.workloadId) continue;
    if (item.platformJobId !== undefined) owned.add(item.platformJobId);
  }
  return owned;
}
