import { Redis } from 'ioredis';
import type { Settings } from '../config/settings-schema.js';
import type { Logger } from '../log/logger.js';

/**
 * What a connection is for, which decides how it behaves when Redis is unreachable:
 * - `worker`: BullMQ workers (blocking commands): retries forever, as BullMQ requires
 *   (`maxRetriesPerRequest: null`);
 * - `service`: a long-running producer (the scheduler): reconnects forever, but a command fails
 *   after a few tries so that a tick errors and is retried at the next one instead of hanging;
 * - `command`: a one-shot CLI command: fails within seconds with a clear message.
 */
export type ConnectionPurpose = 'worker' | 'service' | 'command';

/** Redis could not be reached; the message says where and what to do, never a password. */
export class RedisUnavailableError extends Error {
  override readonly name = 'RedisUnavailableError';
}

/** Connection errors are logged at most this often: while Redis is down ioredis reports every retry. */
const ERROR_LOG_INTERVAL_MS = 30_000;

/**
 * A new ioredis connection to `settings.url`, not yet connected (call {@link connectRedis}).
 * Connection errors go to `logger` (at most one line per 30 s); without one they are left to the
 * commands that fail, so nothing prints "Unhandled error event". The caller owns the connection
 * and quits it.
 */
export function createRedisConnection(
  settings: Settings['redis'],
  purpose: ConnectionPurpose,
  logger?: Logger,
): Redis {
  const redis = new Redis(settings.url, {
    lazyConnect: true,
    connectionName: `paw-${purpose}`,
    connectTimeout: 5_000,
    maxRetriesPerRequest: purpose === 'worker' ? null : purpose === 'service' ? 3 : 1,
    retryStrategy:
      purpose === 'command'
        ? (times) => (times > 2 ? null : times * 250)
        : (times) => Math.min(times * 500, 5_000),
  });
  let lastLogged = 0;
  redis.on('error', (error: Error) => {
    const now = Date.now();
    if (logger === undefined || now - lastLogged < ERROR_LOG_INTERVAL_MS) return;
    lastLogged = now;
    logger.warn(
      { err: { message: error.message }, redis: redactRedisUrl(settings.url), purpose },
      'Redis connection error; retrying',
    );
  });
  return redis;
}

/**
 * Connects and waits until Redis answers. Throws {@link RedisUnavailableError} naming the
 * address (password removed) and the fix.
 */
export async function connectRedis(redis: Redis, url: string): Promise<void> {
  try {
    if (redis.status === 'wait') await redis.connect();
    await redis.ping();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    redis.disconnect();
    throw new RedisUnavailableError(
      `cannot reach Redis at ${redactRedisUrl(url)} (${code}); start it, or set PAW_REDIS_URL (or redis.url in config/paw.yaml) to a Redis that runs`,
      { cause: error },
    );
  }
}

/** `redis://user:secret@host:6379/0` → `redis://user:***@host:6379/0`. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an unparsable Redis URL)';
  }
}
