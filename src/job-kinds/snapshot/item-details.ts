import type { ItemRecord, ItemUpdate } from '../../outcomes/outcome-records.js';
import { trackedId, type SnapshotTracking } from '../../platform/jobs/snapshot-tracking.js';
import type { OnDemandSnapshot } from '../../platform/defaults/default-vocabulary.js';

/**
 * Facts kept in a snapshot item's `details` (scalars only), rewritten whole on every update.
 * The outcome record is the one home of an item's state: the item's job carries only what
 * identifies it, and every step starts from this.
 */
export interface ItemDetails {
  /** The workload's cluster (recorded at fan-out): routes and GraphQL status queries need it. */
  clusterId?: string;
  /** The first time this item's trigger was about to be sent (ISO): reconciliation looks from here. */
  firstTriggerAttemptAt?: string;
  /** The latest trigger attempt whose answer is not recorded yet (ISO); absent once it is. */
  triggerAttemptAt?: string;
  /** Triggers sent for this item (more than 1 only after reconciliation found no trace). */
  triggersSent?: number;
  /** When the trigger's answer arrived, or the snapshot was found (ISO): maxWait counts from here. */
  triggeredAt?: string;
  /** How the snapshot was learnt of: the trigger's answer, or the workload's activity. */
  jobIdFrom?: 'trigger' | 'events';
  /** How it is followed (with `platformJobId`): a job, or an activity without a job id. */
  trackedVia?: 'job' | 'activity';
  /** A job-status link on the platform's own origin. */
  statusUrl?: string;
  /** The kind's status query (GraphQL). */
  onDemandSnapshot?: OnDemandSnapshot;
  /** An activity followed instead of a job: its id (if any) and when it started. */
  activityId?: string;
  activitySince?: string;
  platformStatus?: string;
  progress?: number;
  snapshotId?: string;
  retentionSlaDomainId?: string | null;
  /** Transient failures to read the status, in a row. */
  readFailures?: number;
}

/** The details of a snapshot item as recorded (none for a new item). */
export function detailsOf(item: ItemRecord | undefined): ItemDetails {
  return item?.details ?? {};
}

/** The details once the pending trigger attempt is answered (or provably did nothing). */
export function withoutPendingAttempt(details: ItemDetails): ItemDetails {
  const { triggerAttemptAt: _pending, ...rest } = details;
  return rest;
}

/** The details as the outcome store takes them: scalars only, absent fields left out. */
function scalarDetails(details: ItemDetails): Record<string, string | number | boolean | null> {
  const result: Record<string, string | number | boolean | null> = {};
  for (const [key, value] of Object.entries(details)) {
    if (value !== undefined) result[key] = value as string | number | boolean | null;
  }
  return result;
}

/** The details that record how a snapshot is followed. */
function trackingDetails(tracking: SnapshotTracking): ItemDetails {
  if (tracking.via === 'job') {
    return {
      trackedVia: 'job',
      ...(tracking.clusterId === undefined ? {} : { clusterId: tracking.clusterId }),
      ...(tracking.statusUrl === undefined ? {} : { statusUrl: tracking.statusUrl }),
      ...(tracking.onDemandSnapshot === undefined
        ? {}
        : { onDemandSnapshot: tracking.onDemandSnapshot }),
    };
  }
  return {
    trackedVia: 'activity',
    activitySince: tracking.since,
    ...(tracking.clusterId === undefined ? {} : { clusterId: tracking.clusterId }),
    ...(tracking.activityId === undefined ? {} : { activityId: tracking.activityId }),
  };
}

/**
 * The part of an update that says how the item's snapshot is followed, as one unit: its id
 * (`platformJobId`) and the details that say how to read it are always written together, from
 * one tracking (or none: no id and no tracking details). Written apart, a poll's details once
 * stood beside an adopted activity's id, and the next poll sent that id as a job's.
 */
export function recordedDetails(
  details: ItemDetails,
  tracking: SnapshotTracking | undefined,
): Required<Pick<ItemUpdate, 'platformJobId' | 'details'>> {
  const {
    trackedVia: _via,
    statusUrl: _statusUrl,
    onDemandSnapshot: _onDemandSnapshot,
    activityId: _activityId,
    activitySince: _activitySince,
    ...untracked
  } = details;
  if (tracking === undefined) {
    return { platformJobId: null, details: scalarDetails(untracked) };
  }
  return {
    platformJobId: trackedId(tracking),
    details: scalarDetails({ ...untracked, ...trackingDetails(tracking) }),
  };
}

/** How an item's snapshot is followed, as recorded; undefined before it is known. */
export function trackingOf(item: ItemRecord | undefined): SnapshotTracking | undefined {
  if (item === undefined) return undefined;
  const details = detailsOf(item);
  const workloadId = item.target ?? item.itemKey;
  if (details.trackedVia === 'activity' && details.activitySince !== undefined) {
    return {
      via: 'activity',
      workloadId,
      since: details.activitySince,
      activityId: details.activityId,
      clusterId: details.clusterId,
    };
  }
  if (item.platformJobId === undefined) return undefined;
  return {
    via: 'job',
    workloadId,
    jobId: item.platformJobId,
    clusterId: details.clusterId,
    onDemandSnapshot: details.onDemandSnapshot,
    statusUrl: details.statusUrl,
  };
}
