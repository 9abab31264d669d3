import { tmpdir } from 'node:os';
import type { Redis } from 'ioredis';
import { PawFleet } from './paw-fleet.js';
import { redisContents as everyKeyAndValue } from './redis-contents.js';
import { testRedisUrl, uniquePrefix } from './redis-connection.js';

/**
 * A fleet of real paw processes for a test: the test run's Redis, a prefix no other test uses,
 * debug logs (so that leak checks see everything), a minute to get ready and for a run to end.
 */
export function testFleet(
  redis: Redis,
  options: { credentialsFile: string; label: string; env?: Record<string, string> },
): Promise<PawFleet> {
  return PawFleet.create(redis, {
    redisUrl: testRedisUrl(),
    prefix: uniquePrefix(options.label),
    credentialsFile: options.credentialsFile,
    parentDir: tmpdir(),
    logLevel: 'debug',
    readyTimeoutMs: 60_000,
    runTimeoutMs: 60_000,
    ...(options.env === undefined ? {} : { env: options.env }),
  });
}

/**
 * Every key under `prefix` and every value in it, as one text (strings, hashes, lists, sets,
 * sorted sets and streams), to look for secrets in.
 */
export async function redisContents(redis: Redis, prefix: string): Promise<string> {
  return (await everyKeyAndValue(redis, `${prefix}*`)).text;
}
