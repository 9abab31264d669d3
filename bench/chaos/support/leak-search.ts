import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { redisContents } from '../../../test/testkit/redis-contents.js';

/**
 * Looking for secrets where they must never be: every key and value of a Redis, read by type,
 * and the Redis's own dump file written uncompressed (so that no value escapes a search
 * through an encoding the reads above do not see).
 */

/** Every key of the Redis (all prefixes) and every value and field in it, as text. */
export async function everyRedisKeyAndValue(redis: Redis): Promise<{ text: string; keys: number }> {
  return redisContents(redis);
}

/**
 * The Redis's RDB file after a SAVE with compression off (LZF would hide a secret inside a
 * compressed string from a byte search), read as latin1 so every byte is one character.
 */
export async function uncompressedRedisDump(redis: Redis): Promise<string> {
  await redis.config('SET', 'rdbcompression', 'no');
  await redis.save();
  const [, dir = ''] = await redis.config('GET', 'dir');
  const [, file = 'dump.rdb'] = await redis.config('GET', 'dbfilename');
  return (await readFile(join(dir, file))).toString('latin1');
}

/** Where each secret occurs: `{ place, secret prefix }` for every hit (secrets shortened). */
export function findSecrets(
  places: readonly { name: string; text: string }[],
  secrets: readonly string[],
): { place: string; secret: string }[] {
  const hits: { place: string; secret: string }[] = [];
  for (const place of places) {
    for (const secret of secrets) {
      if (place.text.includes(secret))
        hits.push({ place: place.name, secret: `${secret.slice(0, 6)}…` });
    }
  }
  return hits;
}
