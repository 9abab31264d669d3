import type { Job } from 'bullmq';
import type { JobKind } from '../../definitions/job-definition.js';

/**
 * The processor of one job kind. Its queue carries the scheduler's `run` jobs and any jobs the
 * processor adds itself (distinguished by `job.name`). Each kind's factory takes a small typed
 * object of what that kind uses (its `*-dependencies.ts`), which the worker's registry builds.
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
  /**
   * Optional: `job` is failed for good without `process` running, because it was taken back
   * from dead workers more than `worker.maxStalledCount` times (`reason` says so: stall-limit.ts).
   * Records what the kind's own failure handling would have (a snapshot run ends its fan-out
   * failed); the job fails once it resolves. A process that dies in it leaves the job to be taken
   * back and given up again, so it must be safe to repeat.
   */
  givenUp?(job: Job, reason: string): Promise<void>;
}
