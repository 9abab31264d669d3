import type { Redis } from 'ioredis';
import type { Settings } from '../config/settings-schema.js';
import type { CrashPoints } from '../shared/crash-points.js';
import type { Logger } from '../shared/logger.js';
import type { Outcomes } from '../outcomes/outcomes.js';
import type { PlatformClient } from '../platform/platform-client.js';
import type { RunQueues } from '../queue/run-queues.js';

/**
 * What a worker process opens once and shares among its processors (it opens them at start and
 * closes them at shutdown). No processor sees this: the registry (processor-registry.ts) hands
 * each kind only what it uses.
 */
export interface WorkerResources {
  readonly settings: Settings;
  readonly logger: Logger;
  /** The platform client; its request gate is shared through Redis by every worker process. */
  readonly platform: PlatformClient;
  /** The process's outcomes. */
  readonly outcomes: Outcomes;
  /** To add follow-up jobs (a snapshot run's lanes, a window's delayed resume). */
  readonly queues: RunQueues;
  /** The worker's command connection, for the helpers of the keys a kind keeps itself. */
  readonly redis: Redis;
  readonly crashPoints: CrashPoints;
  /** Fires when the process begins to shut down (before the workers stop taking jobs). */
  readonly stopping: AbortSignal;
}
