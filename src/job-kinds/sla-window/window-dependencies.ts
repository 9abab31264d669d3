import type { Settings } from '../../config/settings-schema.js';
import type { CrashPoints } from '../../shared/crash-points.js';
import type { Logger } from '../../shared/logger.js';
import type { ItemStore } from '../../outcomes/item-store.js';
import type { RunStore } from '../../outcomes/run-store.js';
import type { PlatformClient } from '../../platform/platform-client.js';
import type { RunQueues } from '../../queue/run-queues.js';
import type { Leases } from '../../redis/redis-lease.js';
import type { SlaHolds } from './sla-holds.js';

/**
 * What the sla-window kind uses, and nothing else: the worker's registry
 * (src/job-kinds/processor-registry.ts) builds it from the worker process's resources. The keys the
 * kind keeps in Redis are reached through `holds` and `domainLeases`, not a connection.
 */
export interface SlaWindowDependencies {
  readonly logger: Logger;
  /** SLA Domains: read, pause, resume. */
  readonly platform: PlatformClient;
  /** The run's record. */
  readonly runs: RunStore;
  /** Its pause and resume items. */
  readonly items: ItemStore;
  /** The `sla-window` queue, to add each window's delayed resume. */
  readonly queues: RunQueues;
  readonly crashPoints: CrashPoints;
  /** Which windows hold each SLA Domain paused on each cluster, and who owns the pause. */
  readonly holds: SlaHolds;
  /** One lease per SLA Domain: its pauses and resumes take turns. */
  readonly domainLeases: Leases;
  /** The settings the kind reads: the attempts a resume gets at least. */
  readonly settings: { readonly queues: Pick<Settings['queues'], 'attempts'> };
}
