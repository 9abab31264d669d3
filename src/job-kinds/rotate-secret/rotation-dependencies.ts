import type { Settings } from '../../config/settings-schema.js';
import type { CrashPoints } from '../../shared/crash-points.js';
import type { Logger } from '../../shared/logger.js';
import type { ItemStore } from '../../outcomes/item-store.js';
import type { RunStore } from '../../outcomes/run-store.js';
import type { PlatformClient } from '../../platform/platform-client.js';
import type { Leases } from '../../redis/redis-lease.js';
import type { PendingSinks } from './pending-sinks.js';

/**
 * What the rotate-secret kind uses, and nothing else: the worker's registry
 * (src/job-kinds/processor-registry.ts) builds it from the worker process's resources. The keys the
 * kind keeps in Redis are reached through `pendingSinks` and `accountLeases`, not a connection.
 */
export interface RotateSecretDependencies {
  readonly logger: Logger;
  /** Service accounts (rotate), access tokens (prove, recover), paw's own credentials. */
  readonly platform: PlatformClient;
  /** The run's record. */
  readonly runs: RunStore;
  /** Its rotation item. */
  readonly items: ItemStore;
  readonly crashPoints: CrashPoints;
  /** The sinks whose rotation may be unfinished, for a worker starting up to look at. */
  readonly pendingSinks: PendingSinks;
  /** One lease per service account: its rotations and recoveries take turns. */
  readonly accountLeases: Leases;
  /**
   * The settings the kind reads: paw's own credentials file (the only sink paw's own account
   * may be rotated into) and the rotation section.
   */
  readonly settings: {
    readonly platform: Pick<Settings['platform'], 'credentialsFile'>;
    readonly rotation: Settings['rotation'];
  };
}
