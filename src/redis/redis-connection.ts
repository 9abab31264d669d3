import { Redis } from 'ioredis';
import type { Settings } from '../config/settings-schema.js';
import type { Shutdown } from '../shared/shutdown.js';
import type { Logger } from '../shared/logger.js';
import { RedisErrorLog, redisErrorCause, withoutCommand } from './redis-error-log.js';
import { redisConnectionOptions } from './redis-options.js';
import { SentinelAnswers } from './sentinel-answers.js';

/**
 * What a connection is for, which decides how it behaves when Redis is unreachable:
 * - `worker`: BullMQ workers (blocking commands): retries forever, as BullMQ requires
 *   (`maxRetriesPerRequest: null`);
 * - `service`: a long-running producer (the scheduler): reconnects forever, but a command fails
 *   after a few tries so that a tick errors and is retried at the next one instead of hanging;
 * - `command`: a one-shot CLI command: fails within seconds with a clear message (each sentinel
 *   tried three times at most, and the whole connection bounded by {@link COMMAND_CONNECT_MS}).
 */
export type ConnectionPurpose = 'worker' | 'service' | 'command';

/**
 * How long a one-shot command waits for Redis to answer before it gives up, whatever stalls it: a
 * primary or a sentinel that accepts the connection and never answers, an address that drops
 * packets.
 */
export const COMMAND_CONNECT_MS = 10_000;

/** How long a one-shot command waits for one sentinel's answer. */
const COMMAND_SENTINEL_ANSWER_MS = 2_000;

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
  const commandRetries = (times: number): number | null => (times > 2 ? null : times * 250);
  const redis = new Redis({
    ...redisConnectionOptions(settings),
    lazyConnect: true,
    connectionName: `paw-${purpose}`,
    connectTimeout: 5_000,
    maxRetriesPerRequest: purpose === 'worker' ? null : purpose === 'service' ? 3 : 1,
    retryStrategy: purpose === 'command' ? commandRetries : (times) => Math.min(times * 500, 5_000),
    // ioredis asks the sentinels again forever by default (long-running processes keep that).
    ...(purpose === 'command'
      ? {
          sentinelRetryStrategy: commandRetries,
          sentinelCommandTimeout: COMMAND_SENTINEL_ANSWER_MS,
        }
      : {}),
  });
  redis.on(
    'error',
    new RedisErrorLog(logger, { redis: redactRedisUrl(settings.url), purpose }).listener,
  );
  return redis;
}

/**
 * Connects and waits until Redis answers, for at most `deadlineMs` when given. Throws
 * {@link RedisUnavailableError} naming what it tried (the address, password removed, or each
 * sentinel with what it said) and the fix.
 */
export async function connectRedis(redis: Redis, url: string, deadlineMs?: number): Promise<void> {
  // A failed connection rejects its command with "Connection is closed"; the cause (a refused
  // password, an untrusted certificate) came as an error event before it.
  let cause: unknown;
  const remember = (error: unknown): void => {
    cause = error;
  };
  const { sentinels, name } = redis.options;
  const sentinelAnswers = sentinels == null ? undefined : new SentinelAnswers(name ?? '');
  redis.on('error', remember);
  if (sentinelAnswers !== undefined) redis.on('sentinelError', sentinelAnswers.listener);
  let timer: NodeJS.Timeout | undefined;
  try {
    const connected = (async () => {
      if (redis.status === 'wait') await redis.connect();
      await redis.ping();
    })();
    if (deadlineMs === undefined) await connected;
    else {
      connected.catch(() => undefined);
      await Promise.race([
        connected,
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer within ${deadlineMs / 1000} s`)),
            deadlineMs,
          );
        }),
      ]);
    }
  } catch (error) {
    redis.disconnect();
    const causeOf = (): string =>
      redisErrorCause(
        cause !== undefined && /connection is closed/i.test(redisErrorCause(error)) ? cause : error,
      );
    if (sentinels == null) {
      throw new RedisUnavailableError(
        `cannot reach Redis at ${redactRedisUrl(url)} (${causeOf()}); start it, or set PAW_REDIS_URL (or redis.url in config/paw.yaml) to a Redis that runs`,
        { cause: withoutCommand(error) },
      );
    }
    const addresses = sentinels.map(
      (sentinel) => `${sentinel.host ?? 'localhost'}:${sentinel.port ?? 26379}`,
    );
    throw new RedisUnavailableError(
      `cannot reach Redis through the sentinels ${addresses.join(', ')} for the master name ` +
        `${name ?? '?'} (${(await sentinelAnswers?.describe()) ?? causeOf()}); check that the ` +
        'sentinels run and monitor that name, and the addresses and name in PAW_REDIS_URL (or ' +
        'redis.sentinel in config/paw.yaml)',
      { cause: withoutCommand(error) },
    );
  } finally {
    clearTimeout(timer);
    redis.removeListener('error', remember);
    if (sentinelAnswers !== undefined) {
      redis.removeListener('sentinelError', sentinelAnswers.listener);
    }
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

/** What a part of a long-running process opens its own connection with. */
export interface ProcessParts {
  readonly settings: Settings;
  readonly logger: Logger;
  readonly shutdown: Shutdown;
}

/**
 * A subsystem's own connection (as {@link openShutdownConnection} opens it) and the subsystem's
 * logger, which marks every line with `subsystem`: the connection's errors and the subsystem's
 * own lines alike.
 */
export async function openSubsystemConnection(
  parts: ProcessParts,
  subsystem: string,
  purpose: ConnectionPurpose,
  name: string,
): Promise<{ readonly redis: Redis; readonly logger: Logger }> {
  const logger = parts.logger.child({ subsystem });
  const redis = await openShutdownConnection(parts.settings.redis, purpose, {
    name,
    logger,
    shutdown: parts.shutdown,
  });
  return { redis, logger };
}

/**
 * `redis://user:secret@host:6379/0` → `redis://user:***@host:6379/0` (Sentinel URLs with several
 * hosts too).
 */
export function redactRedisUrl(url: string): string {
  return url.replace(/^([a-z+]+:\/\/)([^:@/]*):[^@/]*@/i, '$1$2:***@');
}
