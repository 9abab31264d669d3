import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Settings } from '../config/settings-schema.js';
import type { JobKind } from '../definitions/job-definition.js';
import type { CrashPoints } from '../lifecycle/crash-points.js';
import type { Logger } from '../log/logger.js';
import type { OutcomeQueries } from '../outcomes/outcome-queries.js';
import type { OutcomeStore } from '../outcomes/outcome-store.js';
import type { PlatformClient } from '../platform/platform-client.js';
import type { RunQueues } from '../queue/run-queues.js';

/**
 * What a worker process hands every processor. The worker owns these resources (opens them
 * at start, closes them at shutdown); a processor only uses them.
 */
export interface WorkerDependencies {
  readonly settings: Settings;
  readonly logger: Logger;
  /** The platform client; its request gate is shared through Redis by every worker process. */
  readonly platform: PlatformClient;
  readonly outcomes: OutcomeStore;
  /** The same records' queries (lists and scans). */
  readonly queries: OutcomeQueries;
  /** To add follow-up jobs (per-item jobs, a window's delayed resume). */
  readonly queues: RunQueues;
  /** A command connection for keys a processor keeps itself (always under `settings.redis.prefix`). */
  readonly redis: Redis;
  /**
   * Fires when the worker starts shutting down (no new jobs are taken from then on): stop any
   * long in-process wait, leave the job to be retried. Work in progress may still finish; the
   * per-job `signal` of {@link KindProcessor.process} says when it must stop.
   */
  readonly shutdownSignal: AbortSignal;
  /** Call `crashPoints.reach('kind.step')` at each step where a crash must lose nothing. */
  readonly crashPoints: CrashPoints;
}

/**
 * The processor of one job kind. Its queue carries the scheduler's `run` jobs and any jobs the
 * processor adds itself (distinguished by `job.name`).
 */
export interface KindProcessor {
  readonly kind: JobKind;
  /**
   * BullMQ's processor function: `token` is needed for step jobs (`job.moveToDelayed`). `signal`
   * fires when this job must stop now: the shutdown's grace period is over (pass it to platform
   * calls; on abort, leave the job safely retryable, e.g. delayed, and return or throw).
   */
  process(job: Job, token: string | undefined, signal?: AbortSignal): Promise<unknown>;
  /**
   * Optional start-up hook: finish what a crash left half done and no job will retry (a job
   * failed for good, or stalled past `worker.maxStalledCount`). The worker service calls it once,
   * in the background, right after this kind's BullMQ Worker starts; a failure is logged, never
   * fatal. `signal` fires when the process shuts down (the shutdown waits for it to settle).
   */
  recover?(signal: AbortSignal): Promise<void>;
}

export type KindProcessorFactory = (dependencies: WorkerDependencies) => KindProcessor;
