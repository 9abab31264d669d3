import type { Redis } from 'ioredis';

/** Redis's `used_memory` now, bytes. */
export async function usedMemoryBytes(redis: Redis): Promise<number> {
  return Number(/^used_memory:(\d+)/m.exec(await redis.info('memory'))?.[1] ?? NaN);
}
