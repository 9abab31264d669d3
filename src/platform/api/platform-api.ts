import type { OnDemandEvidence, OnDemandWindow } from '../jobs/on-demand-evidence.js';
import type { SnapshotJob } from '../jobs/snapshot-job.js';
import type { SnapshotTracking } from '../jobs/snapshot-tracking.js';
import type { Paginated } from '../pagination/paginated.js';
import type { Cluster, ClusterFilters } from '../records/cluster.js';
import type { EventFilters, PlatformEvent } from '../records/platform-event.js';
import type { SlaDomain, SlaDomainFilter } from '../records/sla-domain.js';
import type { Snapshot } from '../records/snapshot.js';
import type { Workload, WorkloadFilters } from '../records/workload.js';
import type { Vocabulary } from '../vocabulary/vocabulary.js';
import type { PlatformApiKind } from '../defaults/platform-apis.js';

/**
 * What paw's jobs and commands need from the platform, the same through the task-based REST
 * interface or the GraphQL one (`platform.api`). Code above the client never learns which runs:
 * records come back in paw's shapes, words are classified through the vocabulary, and a
 * snapshot is followed through a {@link SnapshotTracking} either backend can read.
 */
export interface PlatformApi {
  readonly kind: PlatformApiKind;
  readonly vocabulary: Vocabulary;
  readonly workloads: WorkloadOperations;
  readonly slaDomains: SlaDomainOperations;
  readonly clusters: ClusterOperations;
  readonly events: EventOperations;
}

/** A snapshot the platform accepted: its first job record and how to follow it. */
export interface SnapshotTrigger {
  readonly job: SnapshotJob;
  readonly tracking: SnapshotTracking;
}

/** How an on-demand snapshot is taken: see {@link WorkloadOperations.takeSnapshot}. */
export interface TakeSnapshotOptions {
  readonly slaDomainId?: string | undefined;
  readonly note?: string | undefined;
  readonly signal?: AbortSignal;
  /**
   * Not sent after this time (epoch ms): a trigger whose turn at the request gate comes later
   * throws a NotSentError (src/platform/http/not-sent-error.ts), having sent nothing.
   */
  readonly sendBy?: number | undefined;
}

export interface WorkloadOperations {
  list(filters?: WorkloadFilters, signal?: AbortSignal): Paginated<Workload>;
  get(workloadId: string, signal?: AbortSignal): Promise<Workload>;
  /** Newest first. */
  snapshots(workloadId: string, signal?: AbortSignal): Paginated<Snapshot>;
  /**
   * Takes an on-demand snapshot. A kind paw knows the platform cannot snapshot is refused before
   * anything is sent (`UnsupportedWorkloadTypeError`); a type paw does not recognise is sent
   * when the interface allows it, and the platform's answer decides. Without `slaDomainId` the
   * workload's own SLA Domain applies, or none (kept forever: callers warn). Never retried after
   * a failure that may have reached the platform: a repeated trigger is a second snapshot.
   * `note` goes where the platform keeps who took a snapshot and why (GraphQL's `userNote`).
   */
  takeSnapshot(workload: Workload, options?: TakeSnapshotOptions): Promise<SnapshotTrigger>;
  /** The current state of a tracked snapshot job (or activity). */
  readSnapshotJob(tracking: SnapshotTracking, signal?: AbortSignal): Promise<SnapshotJob>;
  /**
   * Traces of on-demand snapshots of the workload in `window` (from its `since`, this machine's
   * clock, less a skew allowance, but not before its `notBefore`), oldest first: activity
   * naming a job, activity without one, finished on-demand snapshots. An empty list means the
   * platform shows nothing.
   */
  findOnDemandActivity(
    workload: Pick<Workload, 'id' | 'kind' | 'clusterId'>,
    window: OnDemandWindow,
    signal?: AbortSignal,
  ): Promise<OnDemandEvidence[]>;
}

export interface SlaDomainOperations {
  list(filter?: SlaDomainFilter, signal?: AbortSignal): Paginated<SlaDomain>;
  /** With the pause state of each of its clusters. */
  get(slaDomainId: string, signal?: AbortSignal): Promise<SlaDomain>;
  /** Pauses on the given clusters (all of its clusters when absent), then reads the state back. */
  pause(
    slaDomainId: string,
    clusterIds?: readonly string[],
    signal?: AbortSignal,
  ): Promise<SlaDomain>;
  resume(
    slaDomainId: string,
    clusterIds?: readonly string[],
    signal?: AbortSignal,
  ): Promise<SlaDomain>;
}

export interface ClusterOperations {
  list(filters?: ClusterFilters, signal?: AbortSignal): Paginated<Cluster>;
}

export interface EventOperations {
  /** Newest first. */
  list(filters?: EventFilters, signal?: AbortSignal): Paginated<PlatformEvent>;
}
