import type { Settings } from '../../config/settings-schema.js';
import type { CrashPoints } from '../../shared/crash-points.js';
import type { Logger } from '../../shared/logger.js';
import type { OutcomeQueries } from '../../outcomes/outcome-queries.js';
import type { CoverageIndex } from '../../outcomes/coverage-index.js';
import type { ItemStore } from '../../outcomes/item-store.js';
import type { RunStore } from '../../outcomes/run-store.js';
import type { PlatformClient } from '../../platform/platform-client.js';
import type { RunQueues } from '../../queue/run-queues.js';
import type { LaneQueue } from './lanes/lane-queue.js';

/**
 * What the snapshot kind uses, and nothing else: the worker's registry
 * (src/job-kinds/processor-registry.ts) builds it from the worker process's resources.
 */
export interface SnapshotDependencies {
  readonly logger: Logger;
  /** Triggers, status reads and the lookups that reconcile an earlier trigger. */
  readonly platform: PlatformClient;
  /** The run's record. */
  readonly runs: RunStore;
  /** Each item's record: the one home of an item's state. */
  readonly items: ItemStore;
  /** Each definition's workloads with their latest outcome: a run forgets those it no longer covers. */
  readonly coverage: CoverageIndex;
  /** The work queue of the run's lanes, beside the items' records. */
  readonly lanes: LaneQueue;
  /** The same records, listed: a resumed fan-out's items, the traces other runs recorded. */
  readonly queries: OutcomeQueries;
  /** The `snapshot` queue, to add the lane jobs. */
  readonly queues: RunQueues;
  readonly crashPoints: CrashPoints;
  /** Fires when the worker process begins to shut down: a lane stops taking new items. */
  readonly stopping: AbortSignal;
  /**
   * The settings the kind reads: its lanes, polling and lock (an item's lease), the platform's
   * activity delay and response timeout (when an unanswered trigger would show: trigger-window.ts)
   * and rate (what a lane keeps in flight), an item's attempts and their backoff.
   */
  readonly settings: {
    readonly worker: Pick<
      Settings['worker'],
      'snapshotPoll' | 'snapshotLaneSize' | 'snapshotLaneRequestsPerSecond' | 'lockDurationMs'
    >;
    readonly platform: Pick<
      Settings['platform'],
      'activityDelayMs' | 'requestsPerSecond' | 'timeouts'
    >;
    readonly queues: Pick<Settings['queues'], 'backoff' | 'attempts'>;
  };
}
