/**
 * A transient failure that asks the queue to wait at least `retryAfterMs` before the next
 * attempt (paw's backoff strategy honours it, see src/queue/job-backoff.ts): thrown when the
 * platform rate-limited the job's calls, so the retry does not hit the limit again at once.
 */
export class RetryLaterError extends Error {
  override readonly name = 'RetryLaterError';

  constructor(
    message: string,
    readonly retryAfterMs: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
