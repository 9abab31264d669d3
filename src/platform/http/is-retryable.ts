import { LocalErrorCode } from './error-factory.js';
import { isPlatformError } from './platform-errors.js';

/**
 * Whether a failure is transient: the same request may succeed later. Pure, so the in-process
 * retry layer and the queue's retry policy agree. It says nothing about whether repeating the
 * request is *safe*: see {@link isSafeToRepeat}.
 */
export function isRetryable(error: unknown): boolean {
  if (!isPlatformError(error)) return false;
  switch (error.kind) {
    case 'rate_limited':
    case 'unavailable':
    case 'timeout':
    case 'connection':
      return true;
    case 'protocol':
      // A body that is not even JSON is a cut-off or a broken proxy; a wrong shape will not heal.
      return error.code === LocalErrorCode.malformedResponse;
    default:
      return false;
  }
}

/**
 * Whether a failed request may be sent again right away: it is transient, and either the
 * request is idempotent or it provably did nothing. A snapshot trigger that timed out is not
 * repeated here; its caller reconciles first.
 */
export function isSafeToRepeat(error: unknown, idempotent: boolean): boolean {
  if (!isRetryable(error) || !isPlatformError(error)) return false;
  return idempotent || !error.mayHaveTakenEffect;
}
