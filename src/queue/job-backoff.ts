import type { Settings } from '../config/settings-schema.js';
import { jitteredBackoff } from '../shared/jittered-backoff.js';

/** The `backoff.type` of paw's jobs, served by {@link createBackoffStrategy}. */
export const PAW_BACKOFF_TYPE = 'paw-exponential-jitter';

/**
 * The delay before a job's retry number `attemptsMade` (1 for the first retry): paw's backoff
 * (src/shared/jittered-backoff.ts) over `queues.backoff`. An error may ask for a longer wait with a numeric
 * `retryAfterMs` property (e.g. the platform rate-limited the call); the longer of the two is
 * used.
 */
export function backoffDelay(
  attemptsMade: number,
  settings: Settings['queues']['backoff'],
  error?: unknown,
  random: () => number = Math.random,
): number {
  const delay = jitteredBackoff(attemptsMade, settings.baseMs, settings.maxMs, random);
  const retryAfter = (error as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
  return typeof retryAfter === 'number' && Number.isFinite(retryAfter) && retryAfter > delay
    ? Math.round(retryAfter)
    : delay;
}

/**
 * The `settings.backoffStrategy` a BullMQ Worker needs for jobs whose backoff type is
 * {@link PAW_BACKOFF_TYPE} (given to the run queues' workers, run-queues.ts, and to the notification
 * queue's).
 */
export function createBackoffStrategy(
  settings: Settings['queues']['backoff'],
): (attemptsMade: number, type?: string, error?: Error) => number {
  return (attemptsMade, type, error) => {
    if (type !== PAW_BACKOFF_TYPE) {
      throw new Error(
        `unknown backoff type ${JSON.stringify(type)}; paw's jobs use ${PAW_BACKOFF_TYPE}`,
      );
    }
    return backoffDelay(attemptsMade, settings, error);
  };
}
