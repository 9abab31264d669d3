import { UnrecoverableError, type Job } from 'bullmq';
import type { Logger } from '../log/logger.js';
import { isPlatformError } from '../platform/http/platform-errors.js';
import { failureFacts, isTransientFailure, type FailureFacts } from './job-failure.js';
import { RetryLaterError } from './retry-later-error.js';
import { continueAfterShutdown, isLastAttempt } from './step-job.js';

/** How long a job that the platform rate-limited waits, at least, before its retry. */
const RATE_LIMITED_RETRY_MS = 5_000;

export interface FailedStep {
  readonly job: Job;
  readonly token: string | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly error: unknown;
  readonly logger: Logger;
  /** What the step was doing, for the log line ("reading the run's items"). */
  readonly doing: string;
  /**
   * Records the failure for good (the outcome record); called once, when retrying cannot help
   * or no attempt is left. `retryable` says which of the two.
   */
  readonly recordFailed: (facts: FailureFacts, retryable: boolean) => Promise<void>;
  /**
   * How a retryable failure is retried when attempts remain; by default the job is failed for
   * now and the queue retries it with paw's backoff (a rate-limited one waits a little longer).
   */
  readonly retry?: (facts: FailureFacts) => Promise<never>;
}

/**
 * The failure policy of a step that records one outcome (the snapshot run and its items):
 * shutting down → come back in a second (nothing is recorded, the next run reconciles);
 * permanent, or the last attempt → record the failure and fail the job for good; otherwise →
 * retry. Never returns. The window and rotation processors, which settle several targets per
 * job, use the same classification (job-failure.ts) and attempt count (step-job.ts) directly.
 */
export async function settleFailure(step: FailedStep): Promise<never> {
  const { job, error, logger } = step;
  if (step.signal?.aborted === true) {
    logger.info(`shutting down while ${step.doing}: the job resumes later and reconciles first`);
    return continueAfterShutdown(job, step.token);
  }
  const facts = failureFacts(error);
  const retryable = isTransientFailure(error);
  if (!retryable || isLastAttempt(job)) {
    await step.recordFailed(facts, retryable);
    logger.error({ ...facts, retryable }, `${step.doing} failed`);
    throw new UnrecoverableError(facts.errorMessage);
  }
  if (step.retry !== undefined) return step.retry(facts);
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
