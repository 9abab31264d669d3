import type { Snapshot } from '../records/snapshot.js';
import type { SnapshotTracking } from './snapshot-tracking.js';

/**
 * Activity is looked up from this long before the time asked for: that time is this machine's
 * clock, the activity's the platform's.
 */
export const CLOCK_SKEW_ALLOWANCE_MS = 30_000;

/** Which traces a lookup may return. */
export interface OnDemandWindow {
  /** This item's first trigger attempt (epoch ms, this machine's clock). */
  readonly since: number;
  /**
   * Nothing before this (epoch ms) is ours, whatever the skew allowance says: another run of
   * the same workload triggered before it (see trigger-reconciliation.ts).
   */
  readonly notBefore?: number | undefined;
}

/** Where a lookup starts: the skew allowance before `since`, but never before `notBefore`. */
export function lookupStart(window: OnDemandWindow): number {
  return Math.max(
    window.since - CLOCK_SKEW_ALLOWANCE_MS,
    window.notBefore ?? Number.NEGATIVE_INFINITY,
  );
}

/**
 * A trace on the platform that an on-demand snapshot of a workload was started since a given
 * time: what a retry looks for before it triggers again, when an earlier trigger's answer was
 * never recorded.
 */
export type OnDemandEvidence =
  | {
      /** Activity that names its job: the job can be polled as if the trigger had answered. */
      readonly kind: 'job';
      readonly jobId: string;
      /** When the activity says the job was queued (platform clock). */
      readonly time: string;
      readonly tracking: SnapshotTracking;
    }
  | {
      /** On-demand activity without a job id (the real platform's): followed through activity. */
      readonly kind: 'activity';
      readonly activityId: string | undefined;
      readonly time: string;
      readonly tracking: SnapshotTracking;
    }
  | {
      /** A finished on-demand snapshot: the trigger reached the platform and succeeded. */
      readonly kind: 'snapshot';
      readonly snapshotId: string;
      /** The job that took it, when the platform says (the snapshot is that job's owner's). */
      readonly jobId: string | undefined;
      /** When it was taken (platform clock): the end of its job, whose start is unknown. */
      readonly time: string;
    };

/**
 * The finished on-demand snapshots among `snapshots` (newest first, as both interfaces list
 * them) taken at or after `from`, then every trace oldest first: the end of each backend's
 * lookup, after its activity.
 */
export async function withOnDemandSnapshots(
  activity: OnDemandEvidence[],
  snapshots: AsyncIterable<Snapshot>,
  from: number,
): Promise<OnDemandEvidence[]> {
  const evidence = [...activity];
  for await (const snapshot of snapshots) {
    if (snapshot.date === undefined || Date.parse(snapshot.date) < from) break; // newest first
    if (snapshot.isOnDemand === true) {
      evidence.push({
        kind: 'snapshot',
        snapshotId: snapshot.id,
        jobId: snapshot.jobId,
        time: snapshot.date,
      });
    }
  }
  return evidence.sort((a, b) => Date.parse(a.time) - Date.parse(b.time));
}
