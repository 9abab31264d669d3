import type { Redis } from 'ioredis';
import type { Settings } from '../config/settings-schema.js';
import { connectRedis, createRedisConnection } from '../queue/redis-connection.js';

/**
 * Runs `work` with a connection for a one-shot command, which fails within seconds if Redis is
 * unreachable, and always quits it afterwards.
 */
export async function withCommandRedis<T>(
  settings: Settings,
  work: (redis: Redis) => Promise<T>,
): Promise<T> {
  const redis = createRedisConnection(settings.redis, 'command');
  try {
    await connectRedis(redis, settings.redis.url);
    return await work(redis);
  } finally {
    if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
    else redis.disconnect();
  }
}
