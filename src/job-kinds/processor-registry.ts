import type { JobKind } from '../definitions/job-definition.js';
import type { KindProcessor } from '../queue/workers/kind-processor.js';
import { createRotateSecretProcessor } from './rotate-secret/rotate-secret-processor.js';
import { PendingSinks } from './rotate-secret/pending-sinks.js';
import { ROTATION_LEASE, RotationKeys } from './rotate-secret/rotation-keys.js';
import { SlaHolds } from './sla-window/sla-holds.js';
import { createSlaWindowProcessor } from './sla-window/sla-window-processor.js';
import { WINDOW_LEASE, WindowKeys } from './sla-window/window-keys.js';
import { LaneQueue } from './snapshot/lanes/lane-queue.js';
import { createSnapshotProcessor } from './snapshot/snapshot-processor.js';
import { Leases } from '../redis/redis-lease.js';
import type { WorkerResources } from './worker-resources.js';

/** Makes a kind's processor from the worker process's resources. */
export type ProcessorFactory = (resources: WorkerResources) => KindProcessor;

/** The processor factory of each job kind a worker can run. */
export type ProcessorFactories = Readonly<Partial<Record<JobKind, ProcessorFactory>>>;

/**
 * The processor of each job kind, each given only what it uses: the settings it reads, the
 * outcomes, the queues it adds to, the platform client, a logger, the crash points, and, for
 * the keys a kind keeps in Redis, a helper over exactly those keys rather than the connection.
 * `paw worker` runs one BullMQ Worker for each kind listed here (or those named by `--kinds`); a
 * kind missing here cannot be run.
 */
export const PROCESSOR_FACTORIES: ProcessorFactories = {
  snapshot: (resources) =>
    createSnapshotProcessor({
      ...shared(resources),
      queries: resources.outcomes.queries,
      coverage: resources.outcomes.coverage,
      lanes: new LaneQueue(
        resources.outcomes.redis,
        resources.outcomes.keys,
        resources.outcomes.items,
      ),
      queues: resources.queues,
      stopping: resources.stopping,
      settings: {
        worker: {
          snapshotPoll: resources.settings.worker.snapshotPoll,
          snapshotLaneSize: resources.settings.worker.snapshotLaneSize,
          snapshotLaneRequestsPerSecond: resources.settings.worker.snapshotLaneRequestsPerSecond,
          lockDurationMs: resources.settings.worker.lockDurationMs,
        },
        platform: {
          activityDelayMs: resources.settings.platform.activityDelayMs,
          requestsPerSecond: resources.settings.platform.requestsPerSecond,
          timeouts: resources.settings.platform.timeouts,
        },
        queues: {
          backoff: resources.settings.queues.backoff,
          attempts: resources.settings.queues.attempts,
        },
      },
    }),
  'sla-window': (resources) => {
    const keys = new WindowKeys(resources.settings.redis.prefix);
    return createSlaWindowProcessor({
      ...shared(resources),
      queues: resources.queues,
      holds: new SlaHolds(resources.redis, keys),
      domainLeases: new Leases(resources.redis, (id) => keys.lease(id), WINDOW_LEASE),
      settings: { queues: { attempts: resources.settings.queues.attempts } },
    });
  },
  'rotate-secret': (resources) => {
    const keys = new RotationKeys(resources.settings.redis.prefix);
    return createRotateSecretProcessor({
      ...shared(resources),
      pendingSinks: new PendingSinks(resources.redis, keys),
      accountLeases: new Leases(resources.redis, (id) => keys.lease(id), ROTATION_LEASE),
      settings: {
        platform: { credentialsFile: resources.settings.platform.credentialsFile },
        rotation: resources.settings.rotation,
      },
    });
  },
};

/** What every kind uses. */
function shared(resources: WorkerResources) {
  return {
    logger: resources.logger,
    platform: resources.platform,
    runs: resources.outcomes.runs,
    items: resources.outcomes.items,
    crashPoints: resources.crashPoints,
  };
}
