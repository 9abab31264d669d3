import type { Settings } from '../config/settings-schema.js';

/** The `backoff.type` of paw's jobs, served by {@link createBackoffStrategy}. */
export const PAW_BACKOFF_TYPE = 'paw-exponential-jitter';

/**
 * The delay before retry number `attemptsMade` (1 for the first retry): exponential from
 * `baseMs`, capped at `maxMs`, with "equal jitter" (a random point in the upper half), so
 * retries of many jobs that failed together spread out but none comes back immediately. An
 * error may ask for a longer wait with a numeric `retryAfterMs` property (e.g. the platform
 * rate-limited the call); the longer of the two is used.
 */
export function backoffDelay(
  attemptsMade: number,
  settings: Settings['queues']['backoff'],
  error?: unknown,
  random: () => number = Math.random,
): number {
  const exponent = Math.max(0, attemptsMade - 1);
  const ceiling = Math.min(settings.maxMs, settings.baseMs * 2 ** Math.min(exponent, 30));
  const delay = Math.round(ceiling / 2 + random() * (ceiling / 2));
  const retryAfter = (error as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
  return typeof retryAfter === 'number' && Number.isFinite(retryAfter) && retryAfter > delay
    ? Math.round(retryAfter)
    : delay;
}

/**
 * The `settings.backoffStrategy` a BullMQ Worker needs for jobs whose backoff type is
 * {@link PAW_BACKOFF_TYPE} (see worker-options.ts).
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
