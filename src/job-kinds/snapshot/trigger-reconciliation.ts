import type { Logger } from '../../shared/logger.js';
import type { OutcomeQueries } from '../../outcomes/outcome-queries.js';
import type { ItemRecord } from '../../outcomes/outcome-records.js';
import { isActiveStatus } from '../../outcomes/outcome-status.js';
import { NotFoundError } from '../../platform/http/platform-errors.js';
import {
  CLOCK_SKEW_ALLOWANCE_MS,
  lookupStart,
  type OnDemandEvidence,
} from '../../platform/jobs/on-demand-evidence.js';
import type { SnapshotJob } from '../../platform/jobs/snapshot-job.js';
import type { SnapshotTracking } from '../../platform/jobs/snapshot-tracking.js';
import type { PlatformClient } from '../../platform/platform-client.js';
import type { Workload } from '../../platform/records/workload.js';
import { detailsOf } from './item-details.js';

/** How many of the workload's most recent items (other runs) are read for what they own. */
const CLAIMED_ITEMS_READ = 100;

export interface ReconcileRequest {
  readonly platform: PlatformClient;
  readonly queries: OutcomeQueries;
  readonly logger: Logger;
  readonly runId: string;
  readonly workload: Pick<Workload, 'id' | 'kind' | 'clusterId'>;
  /** The first trigger attempt of this item (epoch ms, this worker's clock). */
  readonly since: number;
  readonly signal?: AbortSignal | undefined;
}

/** What an earlier, unanswered trigger left on the platform. */
export type EarlierTrigger =
  | {
      /** A job or activity to follow as if the trigger had answered; `job` is its current state. */
      readonly found: 'tracking';
      readonly tracking: SnapshotTracking;
      readonly job: SnapshotJob;
      readonly time: string;
      /** Other unclaimed triggers that also look like ours: a double trigger happened before. */
      readonly others: number;
    }
  | {
      /** A finished on-demand snapshot: the trigger reached the platform and succeeded. */
      readonly found: 'snapshot';
      readonly snapshotId: string;
      readonly time: string;
      readonly others: number;
    };

/**
 * Finds out whether an earlier attempt's snapshot trigger reached the platform although its
 * answer was never recorded (the worker died, or the call timed out): the workload's on-demand
 * activity and snapshots since the attempt, on whichever interface runs. What another item
 * already owns (its job, activity or snapshot) is not ours; of the rest, a job that names
 * itself is preferred (it can be polled precisely), then activity without a job id, then a
 * finished snapshot. `undefined` means the platform shows nothing: triggering again is safe once
 * it has had time to show it. A failed lookup throws: the caller must not trigger blindly.
 */
export async function findEarlierTrigger(
  request: ReconcileRequest,
): Promise<EarlierTrigger | undefined> {
  const { platform, workload, signal } = request;
  const { owned, latestTriggerBefore, earlierTriggers } = await ownedByOtherItems(request);
  // A trace nearer another run's trigger of this workload than to ours is that run's: activity
  // without a job id cannot be matched by id, and the clock-skew allowance reaches back before
  // our first attempt. So the lookup starts at the midpoint of the two triggers (both on paw's
  // clocks): it holds while the platform's clock is off by less than half the time between
  // them (two runs of one workload seconds apart, with a platform clock that far off, remain
  // ambiguous). The lookup itself starts there, not a filter after it: events without a job id
  // are joined into one activity from the first of them, which must not be the other run's.
  const notBefore =
    latestTriggerBefore === undefined ? undefined : (latestTriggerBefore + request.since) / 2;
  const window = { since: request.since, notBefore };
  const unclaimed = (
    await platform.api.workloads.findOnDemandActivity(workload, window, signal)
  ).filter(
    (evidence) =>
      !owned.has(idOf(evidence)) &&
      !(evidence.kind === 'snapshot' && evidence.jobId !== undefined && owned.has(evidence.jobId)),
  );
  // A finished snapshot names no trigger and is dated at its job's end, so the border above
  // cannot place it: an earlier trigger of another run that has claimed no snapshot may have
  // made it. Adopting it would record this run's workload as snapshotted when nothing was
  // taken for it; triggering again risks one snapshot too many. The second is the lesser harm.
  const from = lookupStart(window);
  const unplaced = earlierTriggers.filter((other) => mayHaveMadeASnapshotSince(other, from));
  if (unplaced.length > 0 && unclaimed.some((evidence) => evidence.kind === 'snapshot')) {
    request.logger.warn(
      { workloadId: workload.id, otherItems: unplaced.map((item) => item.runId) },
      "a finished on-demand snapshot since the first trigger attempt may be another run's: not adopting it",
    );
  }
  const usable = unclaimed.filter(
    (evidence) => evidence.kind !== 'snapshot' || unplaced.length === 0,
  );
  const ranked = [
    ...usable.filter((evidence) => evidence.kind === 'job'),
    ...usable.filter((evidence) => evidence.kind === 'activity'),
    ...usable.filter((evidence) => evidence.kind === 'snapshot'),
  ];

  // One trigger leaves more than one trace: its job or activity, and once it ended, its
  // snapshot. Triggers that left traces are at least as many as the jobs and activities, and as
  // the snapshots: more than one of either is a double trigger.
  const triggers = Math.max(
    ranked.filter((evidence) => evidence.kind !== 'snapshot').length,
    ranked.filter((evidence) => evidence.kind === 'snapshot').length,
  );
  const others = Math.max(0, triggers - 1);
  if (others > 0) {
    request.logger.warn(
      { workloadId: workload.id, adopting: idOf(ranked[0] as OnDemandEvidence), others },
      'more than one on-demand snapshot trigger of this workload since the first trigger attempt, unclaimed (a double trigger); adopting the most precise trace',
    );
  }
  for (const evidence of ranked) {
    if (evidence.kind === 'snapshot') {
      return { found: 'snapshot', snapshotId: evidence.snapshotId, time: evidence.time, others };
    }
    let job: SnapshotJob;
    try {
      job = await platform.api.workloads.readSnapshotJob(evidence.tracking, signal);
    } catch (error) {
      if (error instanceof NotFoundError) continue; // a trace of a job the platform forgot
      throw error;
    }
    return { found: 'tracking', tracking: evidence.tracking, job, time: evidence.time, others };
  }
  return undefined;
}

function idOf(evidence: OnDemandEvidence): string {
  switch (evidence.kind) {
    case 'job':
      return evidence.jobId;
    case 'activity':
      return evidence.activityId ?? `activity@${evidence.time}`;
    case 'snapshot':
      return evidence.snapshotId;
  }
}

/**
 * Whether another run's item, triggered before this item's first attempt, may own a finished
 * snapshot dated at or after `from` (epoch ms): it has claimed none, and its job may have ended
 * since then (it is still followed, it ran out of time and may still finish, or it ended
 * recently enough, allowing for the platform's clock).
 */
function mayHaveMadeASnapshotSince(other: ItemRecord, from: number): boolean {
  if (detailsOf(other).snapshotId !== undefined) return false;
  if (isActiveStatus(other.status) || other.status === 'timed-out') return true;
  if (other.status !== 'succeeded') return false;
  // An end without a time on record is taken as recent: the safe side.
  const finished = Date.parse(other.finishedAt ?? '');
  return !Number.isFinite(finished) || finished + CLOCK_SKEW_ALLOWANCE_MS >= from;
}

/**
 * Job, activity and snapshot ids recorded by the workload's items in other runs, the latest of
 * their triggers before this item's first attempt (epoch ms), and those items triggered before
 * it.
 */
async function ownedByOtherItems(request: ReconcileRequest): Promise<{
  owned: Set<string>;
  latestTriggerBefore: number | undefined;
  earlierTriggers: ItemRecord[];
}> {
  const owned = new Set<string>();
  const earlierTriggers: ItemRecord[] = [];
  let latestTriggerBefore: number | undefined;
  let read = 0;
  for await (const item of request.queries.items({
    target: request.workload.id,
    order: 'newest-first',
  })) {
    if (++read > CLAIMED_ITEMS_READ) break;
    if (item.runId === request.runId && item.itemKey === request.workload.id) continue;
    if (item.platformJobId !== undefined) owned.add(item.platformJobId);
    const details = detailsOf(item);
    if (details.snapshotId !== undefined) owned.add(details.snapshotId);
    if (details.activityId !== undefined) owned.add(details.activityId);
    const triggered = Date.parse(details.triggeredAt ?? details.firstTriggerAttemptAt ?? '');
    if (!Number.isFinite(triggered) || triggered >= request.since) continue;
    earlierTriggers.push(item);
    if (latestTriggerBefore === undefined || triggered > latestTriggerBefore) {
      latestTriggerBefore = triggered;
    }
  }
  return { owned, latestTriggerBefore, earlierTriggers };
}
