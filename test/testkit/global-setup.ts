import type { TestProject } from 'vitest/node';
import { acquireTestRedis } from './redis.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The URL of the Redis that this test run owns (see test/testkit/redis.ts). */
    redisUrl: string;
    redisSource: string;
  }
}

/** One real Redis per test run; tests isolate themselves with a unique key prefix. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const redis = await acquireTestRedis();
  project.provide('redisUrl', redis.url);
  project.provide('redisSource', redis.source);
  return () => redis.stop();
}
