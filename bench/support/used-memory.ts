import type { Redis } from 'ioredis';

/** Redis's `used_memory` now, bytes. */
export async function usedMemoryBytes(redis: Redis): Promise<number> {
  return Number(/^used_memory:(\d+)/m.exec(await redis.info('memory'))?.[1] ?? NaN);
}

/**
 * Redis's `used_memory` once it has freed what UNLINK handed to its own thread (a packed run's
 * items hash, a trimmed night): what the keys take, not what is still to be freed.
 */
export async function settledUsedMemoryBytes(redis: Redis): Promise<number> {
  while (/^lazyfree_pending_objects:(\d+)/m.exec(await redis.info('memory'))?.[1] !== '0') {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return usedMemoryBytes(redis);
}
