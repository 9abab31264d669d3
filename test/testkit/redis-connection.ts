import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { inject } from 'vitest';

/** The test run's Redis URL (started by test/testkit/global-setup.ts). */
export function testRedisUrl(): string {
  return inject('redisUrl');
}

/** A new connection to the test run's Redis; the caller quits it. */
export function connectTestRedis(): Redis {
  return new Redis(testRedisUrl(), { maxRetriesPerRequest: null, lazyConnect: false });
}

/**
 * A key prefix no other test uses, so tests can share one Redis and run in parallel. BullMQ
 * prefixes must not contain ':' inside the name part, so this is letters, digits and dashes.
 */
export function uniquePrefix(label: string): string {
  return `test-${label}-${randomUUID().slice(0, 8)}`;
}
