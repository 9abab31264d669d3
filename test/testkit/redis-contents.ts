import type { Redis } from 'ioredis';

/**
 * Every key of a Redis (or those matching `match`, e.g. `paw*`) and every value and field in
 * it, read by type, as one text: what leak searches look for secrets in. Free of Vitest, so the
 * chaos suite uses it too.
 */
export async function redisContents(
  redis: Redis,
  match = '*',
): Promise<{ text: string; keys: number }> {
  const parts: string[] = [];
  let keys = 0;
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', match, 'COUNT', 1000);
    cursor = next;
    for (const key of batch) {
      keys++;
      parts.push(key);
      const type = await redis.type(key);
      if (type === 'string') parts.push((await redis.get(key)) ?? '');
      else if (type === 'hash') parts.push(JSON.stringify(await redis.hgetall(key)));
      else if (type === 'list') parts.push(JSON.stringify(await redis.lrange(key, 0, -1)));
      else if (type === 'set') parts.push(JSON.stringify(await redis.smembers(key)));
      else if (type === 'zset') {
        parts.push(JSON.stringify(await redis.zrange(key, '0', '-1', 'WITHSCORES')));
      } else if (type === 'stream') parts.push(JSON.stringify(await redis.xrange(key, '-', '+')));
      else parts.push(`(${type})`);
    }
  } while (cursor !== '0');
  return { text: parts.join('\n'), keys };
}

/** Every key under `prefix` (`<prefix>:*`), sorted: what a test expects left, or gone. */
export async function keysUnder(redis: Redis, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys.sort();
}
