import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import type { Logger } from '../shared/logger.js';
import { isPlatformError } from '../platform/http/platform-errors.js';
import { failureFacts, isTransientFailure, type FailureFacts } from './job-failure.js';
import { RetryLaterError } from './retry-later-error.js';
import { continueAfterShutdown, isLastAttempt } from '../queue/step-job.js';

/** How long a job that the platform rate-limited waits, at least, before its retry. */
const RATE_LIMITED_RETRY_MS = 5_000;

/**
 * What the failure policy makes of a failure in this run of a job:
 * - `shutdown`: the worker is shutting down; the job comes back in a second without using an
 *   attempt, and nothing is recorded (its next run reconciles from its records);
 * - `retry`: a transient failure with attempts left; the queue retries the job;
 * - `fail`: a permanent failure, or the last attempt; the failure is recorded for good and the
 *   job fails.
 */
export type FailureVerdict = 'shutdown' | 'retry' | 'fail';

/**
 * The one rule every job kind settles a failure by (see {@link FailureVerdict}): permanence is
 * classified in job-failure.ts, the attempt count comes from step-job.ts.
 */
export function failureVerdict(job: Job, error: unknown, signal?: AbortSignal): FailureVerdict {
  return verdictOf(error, isLastAttempt(job), signal);
}

/**
 * The same rule for an item that counts its own attempts rather than its job's (a snapshot
 * lane's item: one job works through many items, see src/job-kinds/snapshot/lanes/snapshot-lane.ts).
 */
export function itemFailureVerdict(
  error: unknown,
  attempt: number,
  maxAttempts: number,
  signal?: AbortSignal,
): FailureVerdict {
  return verdictOf(error, attempt >= maxAttempts, signal);
}

function verdictOf(error: unknown, lastAttempt: boolean, signal?: AbortSignal): FailureVerdict {
  if (signal?.aborted === true) return 'shutdown';
  return isTransientFailure(error) && !lastAttempt ? 'retry' : 'fail';
}

/** The run of a job a failure happened in: what settling it needs besides the failure. */
export interface JobStep {
  readonly job: Job;
  /** BullMQ's lock token: a job interrupted by shutdown moves itself to the delayed set. */
  readonly token: string | undefined;
  /** The job's AbortSignal: aborted when the worker shuts down. */
  readonly signal?: AbortSignal | undefined;
  readonly logger: Logger;
}

/** Records a failure for good; `retryable` says whether it was transient (the last attempt). */
export type RecordFailed = (facts: FailureFacts, retryable: boolean) => Promise<void>;

export interface FailedStep extends JobStep {
  readonly error: unknown;
  /** What the step was doing, for the log line ("reading the run's items"). */
  readonly doing: string;
  /**
   * Records the failure for good (the outcome record); called once, when retrying cannot help
   * or no attempt is left. Nothing is recorded without it (a job whose run has not started).
   */
  readonly recordFailed?: RecordFailed | undefined;
  /**
   * How a retryable failure is retried when attempts remain; by default the job is failed for
   * now and the queue retries it with paw's backoff (a rate-limited one waits a little longer).
   */
  readonly retry?: (facts: FailureFacts, error: unknown) => Promise<never>;
}

/**
 * Settles the failure of a job's step by the one policy ({@link failureVerdict}): shutting down
 * → come back in a second (nothing is recorded, the next run reconciles); permanent, or the
 * last attempt → record the failure and fail the job for good; otherwise → retry. Never
 * returns. A step that settles several targets settles each one with `TargetFailures`
 * (target-failures.ts) and the job as a whole here.
 */
export async function settleFailure(step: FailedStep): Promise<never> {
  const { job, error, logger } = step;
  // A step that already moved its job to the delayed set has not failed.
  if (error instanceof DelayedError) throw error;
  const verdict = failureVerdict(job, error, step.signal);
  if (verdict === 'shutdown') {
    logger.info(`shutting down while ${step.doing}: the job resumes later and reconciles first`);
    return continueAfterShutdown(job, step.token);
  }
  const facts = failureFacts(error);
  if (verdict === 'fail') {
    const retryable = isTransientFailure(error);
    await step.recordFailed?.(facts, retryable);
    logger.error({ ...facts, retryable }, `${step.doing} failed`);
    throw new UnrecoverableError(facts.errorMessage);
  }
  if (step.retry !== undefined) return step.retry(facts, error);
  logger.warn({ ...facts }, `${step.doing} failed; retrying`);
  throw retryError(error);
}

/** The error a retryable failure is thrown as: a rate limit asks the queue to wait longer. */
export function retryError(error: unknown): Error {
  if (isPlatformError(error) && error.kind === 'rate_limited') {
    return new RetryLaterError(error.message, RATE_LIMITED_RETRY_MS, { cause: error });
  }
  return error instanceof Error ? error : new Error(String(error));
}
