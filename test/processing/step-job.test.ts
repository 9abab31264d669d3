import { DelayedError, Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutcomeStore } from '../../src/outcomes/outcome-store.js';
import { recordAndContinueStepAt } from '../../src/processing/step-job.js';
import { eventually } from '../support/eventually.js';
import { connectTestRedis, uniquePrefix } from '../support/redis-connection.js';

let redis: Redis;

beforeAll(() => {
  redis = connectTestRedis();
});

afterAll(async () => {
  await redis.quit();
});

/**
 * A step job records its item's new state and moves to the delayed set in one script, built from
 * BullMQ's own moveToDelayed (src/queue/delayed-move.ts): this checks it against a real BullMQ
 * worker, as the snapshot items use it.
 */
describe('recordAndContinueStepAt', () => {
  it('records the item and delays the job in one step; the job runs again later, with no attempt used', async () => {
    const prefix = uniquePrefix('step');
    const store = new OutcomeStore(redis, prefix);
    const runId = 'step@20250601T010000Z';
    await store.createRun({
      runId,
      definitionId: 'step',
      kind: 'snapshot',
      fireTime: new Date('2025-06-01T01:00:00Z'),
      trigger: 'cron',
      status: 'queued',
    });
    await store.createItems(runId, [['vm-1', { status: 'queued', target: 'vm-1' }]]);
    const queue = new Queue('steps', { connection: redis, prefix });
    const seen: { run: number; status: string | undefined; delayed: boolean }[] = [];
    const worker = new Worker(
      'steps',
      async (job: Job, token?: string) => {
        const item = await store.getItem(runId, 'vm-1');
        seen.push({
          run: seen.length + 1,
          status: item?.status,
          delayed: (await queue.getDelayedCount()) > 0,
        });
        if (seen.length === 1) {
          await recordAndContinueStepAt(
            store,
            { runId, itemKey: 'vm-1', update: { status: 'running', platformJobId: 'JOB-1' } },
            job,
            token,
            Date.now() + 200,
          );
        }
        return 'done';
      },
      { connection: redis.duplicate(), prefix },
    );
    try {
      const job = await queue.add('step', {}, { jobId: 'vm-1', attempts: 1 });
      await eventually('the job to complete', async () => (await job.isCompleted()) || undefined);
      expect(seen).toEqual([
        { run: 1, status: 'queued', delayed: false },
        { run: 2, status: 'running', delayed: false },
      ]);
      // One attempt allowed, two runs, completed: the move used no attempt (the one counted is
      // the completion's).
      expect((await queue.getJob('vm-1'))?.attemptsMade).toBe(1);
      expect(await store.getItem(runId, 'vm-1')).toMatchObject({ platformJobId: 'JOB-1' });
    } finally {
      await worker.close();
      await queue.close();
    }
  });

  it('refuses without a lock (another worker took the job): nothing is recorded', async () => {
    const prefix = uniquePrefix('step');
    const store = new OutcomeStore(redis, prefix);
    const runId = 'step@20250601T010000Z';
    await store.createRun({
      runId,
      definitionId: 'step',
      kind: 'snapshot',
      fireTime: new Date('2025-06-01T01:00:00Z'),
      trigger: 'cron',
      status: 'queued',
    });
    await store.createItems(runId, [['vm-1', { status: 'queued', target: 'vm-1' }]]);
    const queue = new Queue('steps', { connection: redis, prefix });
    let outcome: unknown;
    const worker = new Worker(
      'steps',
      async (job: Job) => {
        try {
          await recordAndContinueStepAt(
            store,
            { runId, itemKey: 'vm-1', update: { status: 'running' } },
            job,
            'not-the-lock-token',
            Date.now() + 200,
          );
        } catch (error) {
          outcome = error;
        }
        return 'done';
      },
      { connection: redis.duplicate(), prefix },
    );
    try {
      const job = await queue.add('step', {}, { jobId: 'vm-1', attempts: 1 });
      await eventually('the job to complete', async () => (await job.isCompleted()) || undefined);
      expect(outcome).toBeInstanceOf(Error);
      expect(outcome).not.toBeInstanceOf(DelayedError);
      expect(String(outcome)).toMatch(/could not be moved to the delayed set: its lock belongs/);
      expect((await store.getItem(runId, 'vm-1'))?.status).toBe('queued');
    } finally {
      await worker.close();
      await queue.close();
    }
  });
});
