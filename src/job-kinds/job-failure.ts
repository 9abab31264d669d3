import { UnrecoverableError } from 'bullmq';
import { ZodError } from 'zod';
import { PermanentError } from '../shared/permanent-error.js';
import { UsageError } from '../shared/usage-error.js';
import { isRetryable } from '../platform/http/is-retryable.js';
import { isPlatformError } from '../platform/http/platform-errors.js';

/**
 * Whether retrying cannot help: the platform refused for good (permission, not found, invalid),
 * paw is misconfigured, or the job data is invalid. Transient platform failures, Redis hiccups
 * and anything unknown are retried by the queue with backoff.
 */
export function isPermanentFailure(error: unknown): boolean {
  if (error instanceof UnrecoverableError || error instanceof PermanentError) return true;
  if (
    isPlatformError(error) &&
    error.kind === 'authentication' &&
    error.operation === 'clientToken'
  ) {
    // paw's own secret was refused, even after re-reading its credentials file: another paw
    // process may be rotating it right now, between the rotation and writing the file. A
    // retry reads the file again; a secret that is really wrong fails after the last attempt.
    return false;
  }
  if (isPlatformError(error)) return !isRetryable(error);
  return error instanceof UsageError || error instanceof ZodError;
}

/** Whether a job should try again later: the opposite of {@link isPermanentFailure}. */
export function isTransientFailure(error: unknown): boolean {
  return !isPermanentFailure(error);
}

/** What an outcome record says about a failure: a code and a message, never a body or a secret. */
export interface FailureFacts {
  readonly errorCode: string;
  readonly errorMessage: string;
}

/** The code and message of a failure, for the outcome store. */
export function failureFacts(error: unknown): FailureFacts {
  return { errorCode: failureCode(error), errorMessage: failureMessage(error) };
}

/** A short machine-readable code for an outcome record. */
function failureCode(error: unknown): string {
  if (error instanceof PermanentError) return error.code;
  if (isPlatformError(error)) return error.code ?? error.kind.toUpperCase();
  if (error instanceof UsageError) return 'CONFIGURATION';
  if (error instanceof ZodError) return 'INVALID_JOB_DATA';
  return error instanceof Error ? error.name : 'ERROR';
}

/**
 * The message of a failure, for outcome records and logs. Platform and usage errors never hold
 * a secret (their messages are built that way); anything else is reduced to its message.
 */
export function failureMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The error to throw from a processor: permanent failures become BullMQ's UnrecoverableError
 * (no retry), others pass through unchanged (retried with paw's backoff).
 */
export function toJobError(error: unknown): Error {
  if (error instanceof UnrecoverableError) return error;
  if (isPermanentFailure(error)) return new UnrecoverableError(failureMessage(error));
  return error instanceof Error ? error : new Error(String(error));
}
