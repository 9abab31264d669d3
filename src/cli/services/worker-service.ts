import { UnrecoverableError, type Job } from 'bullmq';
import type { Settings } from '../../config/settings-schema.js';
import type { JobKind } from '../../definitions/job-definition.js';
import { CrashPoints } from '../../shared/crash-points.js';
import type { Shutdown } from '../../shared/shutdown.js';
import type { Logger } from '../../shared/logger.js';
import type { Outcomes } from '../../outcomes/outcomes.js';
import type { PlatformClient } from '../../platform/platform-client.js';
import { openShutdownConnection } from '../../redis/redis-connection.js';
import { RunQueues, queueNameOf, workerOptionsFor } from '../../queue/run-queues.js';
import { observeJob, type WorkerObservers } from '../../queue/workers/job-observer.js';
import type { KindProcessor } from '../../queue/workers/kind-processor.js';
import { QueueWorkers } from '../../queue/workers/queue-workers.js';
import { BULLMQ_STALL_LIMIT, stalledPastLimit } from '../../queue/workers/stall-limit.js';
import { waitForRunBefore } from '../../job-kinds/run-order.js';
import {
  PROCESSOR_FACTORIES,
  type ProcessorFactories,
} from '../../job-kinds/processor-registry.js';
import type { WorkerResources } from '../../job-kinds/worker-resources.js';
import { resolveWorkerKinds } from '../../job-kinds/worker-kinds.js';
import { openSharedPlatformClient } from './open-platform-client.js';

export interface WorkerServiceOptions {
  readonly settings: Settings;
  readonly logger: Logger;
  /**
   * The process's outcomes (opened before the workers, so that they close after them): the
   * processors record through them, and their observer hears of every run and item that ends.
   */
  readonly outcomes: Outcomes;
  /**
   * Every resource opened is registered here, in order, to be released in reverse: workers
   * first (stop taking jobs, drain, abort after the grace period), then the queues, the platform
   * client (revokes the session), the request gate and Redis.
   */
  readonly shutdown: Shutdown;
  /** The kinds to run (`--kinds`); every kind with a processor when absent. */
  readonly kinds?: readonly string[];
  /** Kind → processor factory; the registry (processor-registry.ts) by default. */
  readonly factories?: ProcessorFactories;
  /** Told what the workers do (metrics, run-end notifications); see src/ops/. */
  readonly observers?: WorkerObservers;
}

export interface WorkerService {
  readonly kinds: readonly JobKind[];
  /** The queue each kind's Worker takes jobs from. */
  readonly queues: ReadonlyMap<JobKind, string>;
  /** The workers' platform client (for readiness checks; the service closes it). */
  readonly platform: PlatformClient;
}

/**
 * Starts a worker process's workers: opens the dependencies every processor shares (Redis, the
 * shared request gate, the platform client, the queues, the crash points; the outcomes are the
 * process's),
 * and runs one BullMQ Worker per kind with that kind's processor. Used by `paw worker` and
 * `paw start`. Stopping is the shutdown's job (see {@link WorkerServiceOptions.shutdown}).
 */
export async function startWorkerService(options: WorkerServiceOptions): Promise<WorkerService> {
  const { settings, shutdown } = options;
  const logger = options.logger;
  const factories = options.factories ?? PROCESSOR_FACTORIES;
  const kinds = resolveWorkerKinds(options.kinds, factories);

  const redis = await openShutdownConnection(settings.redis, 'worker', {
    name: 'worker',
    logger,
    shutdown,
  });

  const crashPoints = new CrashPoints(settings.debug.crashAt);
  if (settings.debug.crashAt.length > 0) {
    logger.warn(
      { crashAt: settings.debug.crashAt },
      'crash points armed: this process kills itself there (testing only)',
    );
  }

  const observers = options.observers ?? {};
  const platform = await openSharedPlatformClient({
    settings,
    logger,
    shutdown,
    redis,
    observer: observers.platform,
  });

  const queues = new RunQueues(redis, settings);
  shutdown.add('queues (worker)', () => queues.close());
  await queues.applyGlobalConcurrency();

  const resources: WorkerResources = {
    settings,
    logger,
    platform,
    outcomes: options.outcomes,
    queues,
    redis,
    crashPoints,
    stopping: shutdown.signal,
  };

  const workers = new QueueWorkers(logger);
  const recoveries: Promise<void>[] = [];
  const startRecovery = (kind: JobKind, processor: KindProcessor): void => {
    if (processor.recover === undefined) return;
    const recovery = processor.recover(shutdown.signal).catch((error: unknown) => {
      logger.error(
        { kind, err: { message: error instanceof Error ? error.message : String(error) } },
        'start-up recovery failed; the worker runs on',
      );
    });
    recoveries.push(recovery);
  };
  const processors: [JobKind, KindProcessor][] = [];
  const queueNames = new Map<JobKind, string>();
  for (const kind of kinds) {
    const factory = factories[kind];
    if (factory === undefined) continue; // resolveWorkerKinds only returns kinds with one
    const processor = factory(resources);
    processors.push([kind, processor]);
    const queueName = queueNameOf(settings.queues, kind);
    queueNames.set(kind, queueName);
    workers.add({
      queueName,
      processor: (job: Job, token: string | undefined, signal?: AbortSignal) =>
        observeJob(observers.jobs, kind, job, async () => {
          const stalled = stalledPastLimit(job, settings.worker.maxStalledCount);
          if (stalled !== undefined) {
            await processor.givenUp?.(job, stalled);
            throw new UnrecoverableError(stalled);
          }
          await waitForRunBefore(job, token, options.outcomes.runs);
          return processor.process(job, token, signal);
        }),
      options: {
        ...workerOptionsFor(settings, kind, redis),
        lockDuration: settings.worker.lockDurationMs,
        stalledInterval: settings.worker.stalledIntervalMs,
        // Applied above instead, so the kind's givenUp runs before the job fails (stall-limit.ts).
        maxStalledCount: BULLMQ_STALL_LIMIT,
      },
      fields: { kind },
    });
  }

  workers.drainOnShutdown(shutdown, 'workers', {
    graceMs: settings.worker.shutdownGraceMs,
    settling: () => recoveries,
  });
  await workers.start();
  for (const [kind, processor] of processors) startRecovery(kind, processor);
  return { kinds, queues: queueNames, platform };
}
