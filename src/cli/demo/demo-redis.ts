import { randomBytes } from 'node:crypto';
import { UsageError } from '../../shared/usage-error.js';
import {
  RedisServerNotFoundError,
  startPrivateRedisServer,
} from '../../redis/private-redis-server.js';
import {
  COMMAND_CONNECT_MS,
  connectRedis,
  createRedisConnection,
  redactRedisUrl,
} from '../../redis/redis-connection.js';
import type { Settings } from '../../config/settings-schema.js';

/** The Redis a demo runs against, and how to leave it as it was. */
export interface DemoRedis {
  readonly url: string;
  /** A key prefix of the demo's own. */
  readonly prefix: string;
  /** `private`: a redis-server the demo started; `given`: PAW_REDIS_URL. */
  readonly source: 'private' | 'given';
  /** What to tell the user (no password). */
  readonly description: string;
  /**
   * Stops the private server (removing its data), or deletes the demo's keys from the given one,
   * connecting as the demo's settings say (undefined: they were never loaded, so nothing was
   * written).
   */
  release(settings: Settings['redis'] | undefined): Promise<void>;
}

const HOW_TO_GET_REDIS =
  'the demo needs Redis: install redis-server (Debian/Ubuntu: sudo apt-get install redis-server; ' +
  'Fedora: sudo dnf install redis; macOS: brew install redis) so the demo can start a private one, ' +
  'or set PAW_REDIS_URL=redis://host:6379 to use a Redis you have (the demo keeps to keys of its ' +
  'own and deletes them at the end)';

/**
 * The demo's Redis: the one `PAW_REDIS_URL` names (under a fresh prefix, deleted afterwards), or
 * else a private `redis-server` from the PATH on a free port, with a temporary data folder,
 * stopped and removed afterwards. Without either, a {@link UsageError} says how to get one.
 */
export async function demoRedis(givenUrl: string | undefined): Promise<DemoRedis> {
  const prefix = `paw-demo-${randomBytes(4).toString('hex')}`;
  if (givenUrl !== undefined) {
    return {
      url: givenUrl,
      prefix,
      source: 'given',
      description: `${redactRedisUrl(givenUrl)} (PAW_REDIS_URL), keys under ${prefix}:`,
      release: async (settings) => {
        if (settings !== undefined) await deleteKeys(settings, prefix);
      },
    };
  }
  try {
    const server = await startPrivateRedisServer();
    return {
      url: server.url,
      prefix,
      source: 'private',
      description: `a private redis-server on ${server.url} (pid ${server.pid}), stopped at the end`,
      release: () => server.stop(),
    };
  } catch (error) {
    if (error instanceof RedisServerNotFoundError) throw new UsageError(HOW_TO_GET_REDIS);
    throw error;
  }
}

async function deleteKeys(settings: Settings['redis'], prefix: string): Promise<void> {
  const redis = createRedisConnection(settings, 'command');
  try {
    await connectRedis(redis, settings.url, COMMAND_CONNECT_MS);
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
