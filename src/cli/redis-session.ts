import type { Redis } from 'ioredis';
import type { Settings } from '../config/settings-schema.js';
import { Outcomes } from '../outcomes/outcomes.js';
import {
  COMMAND_CONNECT_MS,
  connectRedis,
  createRedisConnection,
} from '../redis/redis-connection.js';

/**
 * Runs `work` with a connection for a one-shot command, which fails within seconds if Redis is
 * unreachable (or never answers), and always quits it afterwards. `work` also gets the command's outcomes on that
 * connection: the one way a command reads or records runs and items.
 */
export async function withCommandRedis<T>(
  settings: Settings,
  work: (redis: Redis, outcomes: Outcomes) => Promise<T>,
): Promise<T> {
  const redis = createRedisConnection(settings.redis, 'command');
  try {
    await connectRedis(redis, settings.redis.url, COMMAND_CONNECT_MS);
    return await work(redis, new Outcomes(redis, settings.redis.prefix));
  } finally {
    if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
    else redis.disconnect();
  }
}
