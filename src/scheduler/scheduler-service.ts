import type { Settings } from '../config/settings-schema.js';
import type { JobDefinition } from '../definitions/job-definition.js';
import type { Shutdown } from '../shared/shutdown.js';
import type { Logger } from '../shared/logger.js';
import { RetentionTrimmer } from '../outcomes/outcome-retention.js';
import { PackingSweeper } from '../outcomes/packing-sweeper.js';
import type { Outcomes } from '../outcomes/outcomes.js';
import { openShutdownConnection } from '../redis/redis-connection.js';
import { RunProducer } from '../queue/run-producer.js';
import { RunQueues } from '../queue/run-queues.js';
import { runAttachedKeys } from '../job-kinds/run-attached-keys.js';
import { FireCoordinator } from './fire-coordinator.js';
import { SchedulePauses } from './schedule-pauses.js';
import { RunFirer } from './run-firer.js';
import { Scheduler, type CatchUpSummary, type SchedulerOptions } from './scheduler.js';

export interface SchedulerServiceOptions {
  readonly settings: Settings;
  readonly definitions: readonly JobDefinition[];
  readonly logger: Logger;
  /** The process's outcomes: the scheduler creates a run record per fire. */
  readonly outcomes: Outcomes;
  /** Every resource opened is registered here, in order, to be released in reverse. */
  readonly shutdown: Shutdown;
  /** Called after each fire this replica handled (metrics; notifications of missed fires). */
  readonly onFire?: SchedulerOptions['onFire'];
}

export interface SchedulerService {
  readonly scheduler: Scheduler;
  readonly catchUp: CatchUpSummary;
  /** This replica's id in leases and logs. */
  readonly replica: string;
}

/**
 * Starts a scheduler replica: connects to Redis, prepares the queues, catches up, starts ticking,
 * trims expired outcome records periodically and packs ended runs' items. Used by `paw scheduler` (and by a combined
 * `paw start`). Stopping is the shutdown's job: ticks stop first, then the trimmer, the queues
 * and the connection.
 */
export async function startSchedulerService(
  options: SchedulerServiceOptions,
): Promise<SchedulerService> {
  const { settings, logger, shutdown } = options;
  const redis = await openShutdownConnection(settings.redis, 'service', {
    name: 'scheduler',
    logger,
    shutdown,
  });

  const queues = new RunQueues(redis, settings);
  shutdown.add('queues (scheduler)', () => queues.close());
  await queues.applyGlobalConcurrency();

  const trimmer = new RetentionTrimmer({
    redis,
    prefix: settings.redis.prefix,
    retentionDays: settings.outcomes.retentionDays,
    intervalMs: settings.outcomes.trimIntervalMinutes * 60_000,
    logger,
    attachedKeys: runAttachedKeys(options.outcomes.keys),
  });
  trimmer.start();
  shutdown.add('outcome trimmer', () => trimmer.stop());

  const packing = new PackingSweeper({
    redis,
    prefix: settings.redis.prefix,
    packAfterMs: settings.outcomes.packAfterSeconds * 1000,
    logger,
  });
  packing.start();
  shutdown.add('outcome packing', () => packing.stop());

  const coordinator = new FireCoordinator(redis, settings.redis.prefix, settings.scheduler.leaseMs);
  const firer = new RunFirer(
    options.outcomes.runs,
    new RunProducer(queues, logger),
    logger,
    undefined,
    new SchedulePauses(redis, settings.redis.prefix),
  );
  const scheduler = new Scheduler({
    definitions: options.definitions,
    coordinator,
    firer,
    settings: settings.scheduler,
    logger: logger.child({ replica: coordinator.owner }),
    ...(options.onFire === undefined ? {} : { onFire: options.onFire }),
  });
  shutdown.add('scheduler', () => scheduler.stop());
  const catchUp = await scheduler.start();
  return { scheduler, catchUp, replica: coordinator.owner };
}
