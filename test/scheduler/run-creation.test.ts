import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsSchema, type Settings } from '../../src/config/settings-schema.js';
import { Outcomes } from '../../src/outcomes/outcomes.js';
import { RunProducer } from '../../src/queue/run-producer.js';
import { RUN_JOB_NAME, runJobData } from '../../src/queue/run-job.js';
import { RunQueues } from '../../src/queue/run-queues.js';
import { connectRedis, createRedisConnection } from '../../src/redis/redis-connection.js';
import { createAndEnqueueRun } from '../../src/scheduler/run-creation.js';
import { exampleDefinition } from '../testkit/definitions.js';
import { testRedisUrl, uniquePrefix } from '../testkit/redis-connection.js';

let connection: Redis;

beforeAll(async () => {
  connection = createRedisConnection(settingsFor('unused').redis, 'service');
  await connectRedis(connection, testRedisUrl());
});

afterAll(async () => {
  await connection.quit();
});

function settingsFor(prefix: string): Settings {
  return settingsSchema.parse({ redis: { url: testRedisUrl(), prefix } });
}

describe("a fire's run and its job", () => {
  it('creates a run and adds its job in one script: the job as queue.add makes it, once per run', async () => {
    const prefix = uniquePrefix('enqueue');
    const settings = settingsFor(prefix);
    const queues = new RunQueues(connection, settings);
    const producer = new RunProducer(queues);
    const store = new Outcomes(connection, prefix);
    try {
      const data = runJobData(exampleDefinition('snapshot'), {
        runId: 'nightly@20250601T010000Z',
        fireTime: new Date('2025-06-01T01:00:00.000Z'),
        trigger: 'cron',
        enqueuedAt: new Date(),
      });
      const run = {
        runId: data.runId,
        definitionId: data.definitionId,
        kind: data.kind,
        fireTime: new Date(data.fireTime),
        trigger: data.trigger,
        status: 'queued',
        notify: false,
      } as const;
      expect(await createAndEnqueueRun(store.runs, producer, run, data)).toEqual({
        created: true,
        status: 'queued',
        enqueued: true,
      });
      const job = await queues.queue('snapshot').getJob(data.runId);
      expect(job?.data).toEqual(data);
      expect(job?.name).toBe(RUN_JOB_NAME);
      expect(job?.opts).toMatchObject({ attempts: settings.queues.attempts });
      expect(await store.runs.get(data.runId)).toMatchObject({ status: 'queued', notify: false });

      // A second handler of the same fire: the run exists and is still queued, so the job is
      // added again, which BullMQ ignores; one job.
      expect(await createAndEnqueueRun(store.runs, producer, run, data)).toMatchObject({
        created: false,
        enqueued: true,
      });
      expect(await queues.queue('snapshot').getJobCountByTypes('waiting')).toBe(1);
      // A run that went on (running, finished) gets no job again.
      await store.runs.start(data.runId);
      await job?.remove();
      expect(await createAndEnqueueRun(store.runs, producer, run, data)).toEqual({
        created: false,
        status: 'running',
        enqueued: false,
      });
      expect(await queues.queue('snapshot').getJobCountByTypes('waiting')).toBe(0);
    } finally {
      await queues.close();
    }
  });
});
