import { DelayedError, Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutcomeStore } from '../../src/outcomes/outcome-store.js';
import { isLostLockError, ownedJobStep } from '../../src/queue/delayed-move.js';
import { eventually } from '../support/eventually.js';
import { connectTestRedis, uniquePrefix } from '../support/redis-connection.js';

let redis: Redis;

beforeAll(() => {
  redis = connectTestRedis();
});

afterAll(async () => {
  await redis.quit();
});

async function storeWithItems(prefix: string, itemKeys: readonly string[]) {
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
  await store.createItems(
    runId,
    itemKeys.map((key) => [key, { status: 'queued', target: key }] as const),
  );
  // As a lane that has taken them: due now.
  await redis.zadd(store.keys.lane(runId, 0), ...itemKeys.flatMap((key) => ['0', key]));
  return { store, runId };
}

/**
 * A lane's job records its items' new states and moves itself to the delayed set in one script,
 * built from BullMQ's own moveToDelayed (src/queue/delayed-move.ts): this checks it against a
 * real BullMQ worker, as the snapshot lanes use it.
 */
describe('ownedJobStep', () => {
  it('records the items and delays the job until its lane is next due, in one step; with the lane empty the job completes', async () => {
    const prefix = uniquePrefix('step');
    const { store, runId } = await storeWithItems(prefix, ['vm-1', 'vm-2']);
    const queue = new Queue('steps', { connection: redis, prefix });
    const seen: { run: number; statuses: (string | undefined)[]; at: number }[] = [];
    const worker = new Worker(
      'steps',
      async (job: Job, token?: string) => {
        const statuses = [
          (await store.getItem(runId, 'vm-1'))?.status,
          (await store.getItem(runId, 'vm-2'))?.status,
        ];
        seen.push({ run: seen.length + 1, statuses, at: Date.now() });
        const step = ownedJobStep(job, token ?? '', { moveToNextDue: true });
        const writes =
          seen.length === 1
            ? [
                // vm-1 ends and leaves the lane; vm-2 is due again in 300 ms.
                { itemKey: 'vm-1', update: { status: 'succeeded' as const }, dueAt: null },
                {
                  itemKey: 'vm-2',
                  update: { status: 'running' as const, platformJobId: 'JOB-2' },
                  dueAt: Date.now() + 300,
                },
              ]
            : [{ itemKey: 'vm-2', update: { status: 'succeeded' as const }, dueAt: null }];
        const { stepResult } = await store.recordItems(runId, 0, writes, step);
        if (stepResult === 1) throw new DelayedError();
        return 'done';
      },
      { connection: redis.duplicate(), prefix },
    );
    try {
      const job = await queue.add('step', {}, { jobId: 'lane-0', attempts: 1 });
      await eventually('the job to complete', async () => (await job.isCompleted()) || undefined);
      expect(seen.map(({ run, statuses }) => ({ run, statuses }))).toEqual([
        { run: 1, statuses: ['queued', 'queued'] },
        { run: 2, statuses: ['succeeded', 'running'] },
      ]);
      // The second run came when vm-2 was due, not before.
      expect((seen[1]?.at ?? 0) - (seen[0]?.at ?? 0)).toBeGreaterThanOrEqual(280);
      // One attempt allowed, two runs, completed: the move used no attempt (the one counted is
      // the completion's).
      expect((await queue.getJob('lane-0'))?.attemptsMade).toBe(1);
      expect(await store.getItem(runId, 'vm-2')).toMatchObject({
        status: 'succeeded',
        platformJobId: 'JOB-2',
      });
      expect(await redis.zcard(store.keys.lane(runId, 0))).toBe(0);
    } finally {
      await worker.close();
      await queue.close();
    }
  });

  it('refuses without the lock (another worker took the job): nothing is recorded', async () => {
    const prefix = uniquePrefix('step');
    const { store, runId } = await storeWithItems(prefix, ['vm-1']);
    const queue = new Queue('steps', { connection: redis, prefix });
    let outcome: unknown;
    const worker = new Worker(
      'steps',
      async (job: Job) => {
        try {
          await store.recordItems(
            runId,
            0,
            [{ itemKey: 'vm-1', update: { status: 'running' }, dueAt: Date.now() + 200 }],
            ownedJobStep(job, 'not-the-lock-token', { moveToNextDue: true }),
          );
        } catch (error) {
          outcome = error;
        }
        return 'done';
      },
      { connection: redis.duplicate(), prefix },
    );
    try {
      const job = await queue.add('step', {}, { jobId: 'lane-0', attempts: 1 });
      await eventually('the job to complete', async () => (await job.isCompleted()) || undefined);
      expect(outcome).toBeInstanceOf(Error);
      expect(String(outcome)).toMatch(/no longer this worker's.*its lock belongs to another/);
      expect((await store.getItem(runId, 'vm-1'))?.status).toBe('queued');
      expect(await redis.zscore(store.keys.lane(runId, 0), 'vm-1')).toBe('0');
    } finally {
      await worker.close();
      await queue.close();
    }
  });

  it('starts the count of stalls again: a lane that records progress outlives any number of worker kills', async () => {
    const prefix = uniquePrefix('step');
    const { store, runId } = await storeWithItems(prefix, ['vm-1']);
    const queue = new Queue('steps', { connection: redis, prefix });
    const worker = new Worker(
      'steps',
      async (job: Job, token?: string) => {
        // As BullMQ's stall check counts a job taken back from a dead worker.
        await redis.hset(`${prefix}:steps:${job.id ?? ''}`, 'stc', 4);
        await store.recordItems(
          runId,
          0,
          [{ itemKey: 'vm-1', update: { status: 'succeeded' }, dueAt: null }],
          ownedJobStep(job, token ?? ''),
        );
        return (await redis.hget(`${prefix}:steps:${job.id ?? ''}`, 'stc')) ?? 'none';
      },
      { connection: redis.duplicate(), prefix },
    );
    try {
      const job = await queue.add('step', {}, { jobId: 'lane-0', attempts: 1 });
      await eventually('the job to complete', async () => (await job.isCompleted()) || undefined);
      expect((await queue.getJob('lane-0'))?.returnvalue).toBe('none');
    } finally {
      await worker.close();
      await queue.close();
    }
  });

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

/**
 * The end of a lane's wake (src/processors/snapshot/snapshot-lane.ts): with items due at once, the
 * job stays this worker's unless another job waits for a slot or the queue is paused.
 */
describe('ownedJobStep with stayIfDueWithinMs', () => {
  async function endOfWake(options: {
    readonly dueInMs: number;
    readonly before?: (queue: Queue, prefix: string) => Promise<void>;
  }) {
    const prefix = uniquePrefix('step');
    const { store, runId } = await storeWithItems(prefix, ['vm-1']);
    await redis.zadd(store.keys.lane(runId, 0), Date.now() + options.dueInMs, 'vm-1');
    const queue = new Queue('steps', { connection: redis, prefix });
    const results: { stepResult: number; lock: string | null; state: string }[] = [];
    const worker = new Worker(
      'steps',
      async (job: Job, token?: string) => {
        if (job.id !== 'lane-0') return 'other';
        if (results.length > 0) return 'done';
        await options.before?.(queue, prefix);
        const { stepResult } = await store.recordItems(
          runId,
          0,
          [],
          ownedJobStep(job, token ?? '', { moveToNextDue: true, stayIfDueWithinMs: 2_000 }),
        );
        results.push({
          stepResult,
          lock: await redis.get(`${prefix}:steps:lane-0:lock`),
          state: await queue.getJobState('lane-0'),
        });
        if (stepResult === 1) throw new DelayedError();
        return token === results[0]?.lock ? 'stayed with its lock' : 'lost its lock';
      },
      { connection: redis.duplicate(), prefix },
    );
    try {
      const job = await queue.add('step', {}, { jobId: 'lane-0', attempts: 1 });
      await eventually('the job to complete', async () => (await job.isCompleted()) || undefined);
      const returned: unknown = (await queue.getJob('lane-0'))?.returnvalue;
      return { result: results[0], returned };
    } finally {
      await worker.close();
      await queue.close();
    }
  }

  it('stays, its lock kept, when its lane is due within that long and no other job waits', async () => {
    const { result, returned } = await endOfWake({ dueInMs: 500 });
    expect(result).toMatchObject({ stepResult: 2, state: 'active' });
    expect(returned).toBe('stayed with its lock');
  });

  it('moves when its lane is due later than that', async () => {
    const { result } = await endOfWake({ dueInMs: 2_300 });
    expect(result).toMatchObject({ stepResult: 1, lock: null, state: 'delayed' });
  });

  it('moves when another job waits for a slot: that job gets its turn', async () => {
    const { result } = await endOfWake({
      dueInMs: 0,
      before: async (queue) => {
        await queue.add('step', {}, { jobId: 'another-run-lane-0' });
      },
    });
    expect(result).toMatchObject({ stepResult: 1, lock: null });
  });

  it('moves when the queue is paused: no worker runs it again until it is resumed', async () => {
    const { result } = await endOfWake({
      dueInMs: 0,
      before: async (queue) => {
        await queue.pause();
        // Resumed once the move is made, so that the job can finish the test.
        setTimeout(() => void queue.resume(), 300);
      },
    });
    expect(result).toMatchObject({ stepResult: 1, lock: null });
  });
});
