import { Redis } from 'ioredis';
import type { Settings } from '../config/settings-schema.js';
import type { Shutdown } from '../lifecycle/shutdown.js';
import type { Logger } from '../log/logger.js';
import { RedisErrorLog, redisErrorCause, withoutCommand } from '../redis/redis-error-log.js';
import { redisConnectionOptions } from '../redis/redis-options.js';

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

/**
 * A new ioredis connection to `settings.url`, not yet connected (call {@link connectRedis}).
 * Connection errors go to `logger` (at most one line per 30 s, naming the cause, never a
 * command's arguments; see RedisErrorLog); without one they are left to the commands that fail,
 * so nothing prints "Unhandled error event". The caller owns the connection and quits it.
 */
export function createRedisConnection(
  settings: Settings['redis'],
  purpose: ConnectionPurpose,
  logger?: Logger,
): Redis {
  const redis = new Redis({
    ...redisConnectionOptions(settings),
    lazyConnect: true,
    connectionName: `paw-${purpose}`,
    connectTimeout: 5_000,
    maxRetriesPerRequest: purpose === 'worker' ? null : purpose === 'service' ? 3 : 1,
    retryStrategy:
      purpose === 'command'
        ? (times) => (times > 2 ? null : times * 250)
        : (times) => Math.min(times * 500, 5_000),
  });
  redis.on(
    'error',
    new RedisErrorLog(logger, { redis: redactRedisUrl(settings.url), purpose }).listener,
  );
  return redis;
}

/**
 * Connects and waits until Redis answers. Throws {@link RedisUnavailableError} naming the
 * address (password removed) and the fix.
 */
export async function connectRedis(redis: Redis, url: string): Promise<void> {
  // A failed connection rejects its command with "Connection is closed"; the cause (a refused
  // password, an untrusted certificate) came as an error event before it.
  let cause: unknown;
  const remember = (error: unknown): void => {
    cause = error;
  };
  redis.on('error', remember);
  try {
    if (redis.status === 'wait') await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    const reason = redisErrorCause(
      cause !== undefined && /connection is closed/i.test(redisErrorCause(error)) ? cause : error,
    );
    throw new RedisUnavailableError(
      `cannot reach Redis at ${redactRedisUrl(url)} (${reason}); start it, or set PAW_REDIS_URL (or redis.url in config/paw.yaml) to a Redis that runs`,
      { cause: withoutCommand(error) },
    );
  } finally {
    redis.removeListener('error', remember);
  }
}

/**
 * A connection for one part of a long-running process, connected, and released by `shutdown` in
 * its turn (`redis (<name>)`: quit, or disconnect when quitting fails). It is registered before
 * it connects, so a connection that fails to connect is released too.
 */
export async function openShutdownConnection(
  settings: Settings['redis'],
  purpose: ConnectionPurpose,
  part: { readonly name: string; readonly logger: Logger; readonly shutdown: Shutdown },
): Promise<Redis> {
  const redis = createRedisConnection(settings, purpose, part.logger);
  part.shutdown.add(`redis (${part.name})`, async () => {
    await redis.quit().catch(() => redis.disconnect());
  });
  await connectRedis(redis, settings.url);
  return redis;
}

/**
 * `redis://user:secret@host:6379/0` → `redis://user:***@host:6379/0` (Sentinel URLs with several
 * hosts too).
 */
export function redactRedisUrl(url: string): string {
  return url.replace(/^([a-z+]+:\/\/)([^:@/]*):[^@/]*@/i, '$1$2:***@');
}
