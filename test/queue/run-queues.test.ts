import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsSchema, type Settings } from '../../src/config/settings-schema.js';
import { PAW_BACKOFF_TYPE } from '../../src/queue/job-backoff.js';
import { RunProducer } from '../../src/queue/run-producer.js';
import { RUN_JOB_NAME, type RunJobData } from '../../src/queue/run-job.js';
import { RunQueues, workerOptionsFor } from '../../src/queue/run-queues.js';
import {
  connectRedis,
  createRedisConnection,
  redactRedisUrl,
  RedisUnavailableError,
} from '../../src/redis/redis-connection.js';
import { exampleDefinition } from '../testkit/definitions.js';
import { testRedisUrl, uniquePrefix } from '../testkit/redis-connection.js';

let connection: Redis;

beforeAll(async () => {
  connection = createRedisConnection(redisSettingsFor(testRedisUrl(), 'unused'), 'service');
  await connectRedis(connection, testRedisUrl());
});

afterAll(async () => {
  await connection.quit();
});

function settingsFor(prefix: string, queues: Record<string, unknown> = {}): Settings {
  return settingsSchema.parse({ redis: { url: testRedisUrl(), prefix }, queues });
}

function runData(kind: 'snapshot' | 'rotate-secret', runId: string): RunJobData {
  const definition = exampleDefinition(kind);
  return {
    runId,
    definitionId: definition.id,
    kind,
    fireTime: '2025-06-01T01:00:00.000Z',
    trigger: 'cron',
    enqueuedAt: new Date().toISOString(),
    definition,
  };
}

describe('queue topology and producer', () => {
  it('adds one job per run id to the queue of its kind, with paw job options', async () => {
    // A Redis Cluster hash-tag prefix: every key of every queue shares the {…} slot tag.
    const prefix = `{${uniquePrefix('queues')}}`;
    const settings = settingsFor(prefix);
    const queues = new RunQueues(connection, settings);
    const producer = new RunProducer(queues);
    try {
      const data = runData('snapshot', 'nightly@20250601T010000Z');
      expect(await producer.enqueueRun(data)).toEqual({ jobId: data.runId, queue: 'snapshot' });
      await producer.enqueueRun(data);
      await producer.enqueueRun({ ...data, enqueuedAt: new Date().toISOString() });
      const snapshot = queues.queue('snapshot');
      expect(await snapshot.getJobCountByTypes('waiting')).toBe(1);
      expect(await queues.queue('rotate-secret').getJobCountByTypes('waiting')).toBe(0);

      const job = await snapshot.getJob(data.runId);
      expect(job?.name).toBe(RUN_JOB_NAME);
      expect(job?.data).toEqual(data);
      expect(job?.opts).toMatchObject({
        attempts: 5,
        backoff: { type: PAW_BACKOFF_TYPE, delay: 2000 },
        // queues.keepCompleted.count 0 (the default): a completed job is deleted at once.
        removeOnComplete: true,
        removeOnFail: { age: 604_800, count: 10_000 },
      });
      const keys = await connection.keys(`${prefix}:*`);
      expect(keys.length).toBeGreaterThan(0);
      // Each key begins with the {…} tag, so Redis Cluster hashes them all to one slot.
      expect(keys.every((key) => key.startsWith(`${prefix}:`))).toBe(true);
      expect(keys).toContain(`${prefix}:snapshot:wait`);

      await expect(
        producer.enqueueRun({ ...data, definitionId: 'someone-else' }),
      ).rejects.toThrow();
    } finally {
      await queues.close();
    }
  });

  it('runs rotations one at a time across workers (global concurrency 1)', async () => {
    const settings = settingsFor(uniquePrefix('global'));
    const queues = new RunQueues(connection, settings);
    try {
      await queues.applyGlobalConcurrency();
      expect(await queues.queue('rotate-secret').getGlobalConcurrency()).toBe(1);
      expect(await queues.queue('snapshot').getGlobalConcurrency()).toBeNull();
    } finally {
      await queues.close();
    }
  });

  it('retries a failing job with paw backoff, then keeps only as many finished jobs as allowed', async () => {
    const settings = settingsFor(uniquePrefix('retry'), {
      attempts: 4,
      backoff: { baseMs: 100, maxMs: 1000 },
      keepCompleted: { ageSeconds: 3600, count: 2 },
    });
    const queues = new RunQueues(connection, settings);
    const workerConnection = createRedisConnection(settings.redis, 'worker');
    const attemptsAt = new Map<string, number[]>();
    const worker = new Worker(
      settings.queues.rotateSecret.name,
      async (job: Job<RunJobData>) => {
        const times = attemptsAt.get(job.id ?? '') ?? [];
        times.push(Date.now());
        attemptsAt.set(job.id ?? '', times);
        // The first job fails twice (a transient failure), then succeeds.
        if (job.id === 'rotate@20250601T030000Z' && times.length < 3) throw new Error('transient');
      },
      workerOptionsFor(settings, 'rotate-secret', workerConnection),
    );
    try {
      const producer = new RunProducer(queues);
      const ids = [0, 1, 2, 3].map((day) => `rotate@2025060${day + 1}T030000Z`);
      for (const id of ids) await producer.enqueueRun(runData('rotate-secret', id));
      const queue = queues.queue('rotate-secret');
      await expect
        .poll(() => attemptsAt.get(ids[0] ?? '')?.length ?? 0, { timeout: 20_000, interval: 100 })
        .toBe(3);
      await expect
        .poll(async () => (await queue.getJobCounts('wait', 'active', 'delayed')) as unknown, {
          timeout: 20_000,
          interval: 100,
        })
        .toEqual({ wait: 0, active: 0, delayed: 0 });
      const times = attemptsAt.get(ids[0] ?? '') ?? [];
      // Each retry waited at least half the exponential ceiling (100 ms, then 200 ms).
      expect((times[1] ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(50);
      expect((times[2] ?? 0) - (times[1] ?? 0)).toBeGreaterThanOrEqual(100);
      // Four jobs completed, two kept: Redis stays bounded, the outcome store keeps the record.
      expect(await queue.getJobCountByTypes('completed')).toBe(2);
    } finally {
      await worker.close();
      await queues.close();
      await workerConnection.quit();
    }
  });

  it('fails fast with a clear message (and no password) when Redis is unreachable', async () => {
    const url = 'redis://user:hunter2@127.0.0.1:1';
    const redis = createRedisConnection(redisSettingsFor(url, 'paw'), 'command');
    const error = await connectRedis(redis, url).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RedisUnavailableError);
    expect((error as Error).message).toContain(
      'cannot reach Redis at redis://user:***@127.0.0.1:1',
    );
    expect((error as Error).message).toContain('PAW_REDIS_URL');
    expect((error as Error).message).not.toContain('hunter2');
    expect(redactRedisUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
  });
});

function redisSettingsFor(url: string, prefix: string) {
  return settingsSchema.parse({ redis: { url, prefix } }).redis;
}
