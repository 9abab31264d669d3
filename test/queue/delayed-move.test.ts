import { Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLostLockError } from '../../src/queue/delayed-move.js';
import { eventually } from '../testkit/eventually.js';
import { connectTestRedis, uniquePrefix } from '../testkit/redis-connection.js';

let redis: Redis;

beforeAll(() => {
  redis = connectTestRedis();
});

afterAll(async () => {
  await redis.quit();
});

/**
 * A step job's records and its move are one script: test/job-kinds/snapshot/lane-queue.test.ts
 * checks them against a real BullMQ worker, as the snapshot lanes use them.
 */
describe('ownedJobStep', () => {
  it('tells a lost lock, which BullMQ reports as a worker error when it cannot finish the job, from a connection error', async () => {
    const prefix = uniquePrefix('step');
    const queue = new Queue('steps', { connection: redis, prefix });
    const errors: Error[] = [];
    const worker = new Worker(
      'steps',
      async (job: Job) => {
        // As when this worker was too slow to renew its lock and another took the job over.
        await redis.del(`${prefix}:steps:${job.id ?? ''}:lock`);
        throw new Error('the step failed after its lock was gone');
      },
      { connection: redis.duplicate(), prefix },
    );
    worker.on('error', (error) => errors.push(error));
    try {
      await queue.add('step', {}, { jobId: 'lane-0', attempts: 3, backoff: 1_000 });
      const lost = await eventually('BullMQ to report the lost lock', () => errors[0]);
      expect(lost.message).toMatch(/lock/i);
      expect(isLostLockError(lost)).toBe(true);
      expect(isLostLockError(new Error('connect ECONNREFUSED 127.0.0.1:6379'))).toBe(false);
      expect(isLostLockError(undefined)).toBe(false);
    } finally {
      await worker.close();
      await queue.close();
    }
  });
});
