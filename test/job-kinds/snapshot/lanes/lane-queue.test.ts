import { DelayedError, Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LaneKeys } from '../../../../src/job-kinds/snapshot/lanes/lane-keys.js';
import { LaneQueue } from '../../../../src/job-kinds/snapshot/lanes/lane-queue.js';
import { Outcomes } from '../../../../src/outcomes/outcomes.js';
import { UnknownRunError } from '../../../../src/outcomes/unknown-run-error.js';
import { LostJobError, ownedJobStep } from '../../../../src/queue/delayed-move.js';
import { eventually } from '../../../testkit/eventually.js';
import { connectTestRedis, uniquePrefix } from '../../../testkit/redis-connection.js';

let redis: Redis;

beforeAll(() => {
  redis = connectTestRedis();
});

afterAll(async () => {
  await redis.quit();
});

/** The outcome records and the lane queue of a prefix, with its lane keys. */
function lanesOf(prefix: string) {
  const store = new Outcomes(redis, prefix);
  const lanes = new LaneQueue(redis, store.keys, store.items);
  return { store, lanes, keys: new LaneKeys(store.keys) };
}

async function queuedRun(store: Outcomes, runId = 'step@20250601T010000Z') {
  await store.runs.create({
    runId,
    definitionId: 'step',
    kind: 'snapshot',
    fireTime: new Date('2025-06-01T01:00:00Z'),
    trigger: 'cron',
    status: 'queued',
  });
  return runId;
}

async function storeWithItems(prefix: string, itemKeys: readonly string[]) {
  const { store, lanes, keys } = lanesOf(prefix);
  const runId = await queuedRun(store);
  await store.items.create(
    runId,
    itemKeys.map((key) => [key, { status: 'queued', target: key }] as const),
  );
  // As a lane that has taken them: due now.
  await redis.zadd(keys.lane(runId, 0), ...itemKeys.flatMap((key) => ['0', key]));
  return { store, lanes, keys, runId };
}

/**
 * Runs `step` as the processor of a real BullMQ job, whose lock it holds (a lane's writes are
 * made only while its job is its worker's), and returns what it returned.
 */
let activeJobs = 0;

async function inActiveJob<T>(
  prefix: string,
  step: (job: Job, token: string) => Promise<T>,
): Promise<T> {
  const queue = new Queue('lanes', { connection: redis, prefix });
  let result: { value: T } | { error: unknown } | undefined;
  const worker = new Worker(
    'lanes',
    async (job: Job, token?: string) => {
      try {
        result = { value: await step(job, token ?? '') };
      } catch (error) {
        result = { error };
      }
      return 'done';
    },
    { connection: redis.duplicate(), prefix },
  );
  try {
    activeJobs += 1;
    await queue.add('lane', {}, { jobId: `lane-${activeJobs}`, attempts: 1 });
    const ended = await eventually('the job to end', () => result);
    if ('error' in ended) throw ended.error;
    return ended.value;
  } finally {
    await worker.close();
    await queue.close();
  }
}

describe('LaneQueue', () => {
  it('queues items for lanes once, gives a lane its due items and its share of the queue in one read, and records many items in one script', async () => {
    const prefix = uniquePrefix('lanes');
    const { store, lanes, keys } = lanesOf(prefix);
    const runId = await queuedRun(store);
    await store.items.create(runId, [
      ['vm-1', { status: 'queued', target: 'vm-1' }],
      ['vm-2', { status: 'queued', target: 'vm-2' }],
      ['vm-3', { status: 'queued', target: 'vm-3' }],
      ['vm-4', { status: 'queued', target: 'vm-4' }],
    ]);
    expect(await lanes.count(runId, 2)).toBe(2);
    // The first count stays.
    expect(await lanes.count(runId, 5)).toBe(2);
    expect(await lanes.enqueue(runId, 2, ['vm-1', 'vm-2', 'vm-3'])).toBe(3);

    // A lane with no room for new items takes none from the queue.
    const none = await lanes.due(runId, 1, {
      upTo: 1_000,
      limit: 2,
      fromQueue: 0,
      leaseUntil: 6_000,
    });
    expect(none).toMatchObject({ laneSize: 0, queued: 3, items: [] });
    // Lane 0 has one item of its own, due at 1000: the queue comes first.
    await redis.zadd(keys.lane(runId, 0), '1000', 'vm-4');
    const first = await lanes.due(runId, 0, {
      upTo: 1_000,
      limit: 2,
      fromQueue: 2,
      leaseUntil: 6_000,
    });
    expect(first).toMatchObject({
      runStatus: 'queued',
      laneSize: 3,
      nextDueAt: 1_000,
      queued: 1,
      items: [
        { itemKey: 'vm-1', dueAt: 6_000, item: { status: 'queued' } },
        { itemKey: 'vm-2', dueAt: 6_000, item: { status: 'queued' } },
      ],
    });
    // The rest of the queue, then the lane's own due item.
    const second = await lanes.due(runId, 0, {
      upTo: 1_000,
      limit: 2,
      fromQueue: 2,
      leaseUntil: 7_000,
    });
    expect(second?.items.map((item) => [item.itemKey, item.dueAt])).toEqual([
      ['vm-3', 7_000],
      ['vm-4', 1_000],
    ]);
    expect(second?.queued).toBe(0);
    expect(second?.nextDueAt).toBe(6_000);
    // A repeated fan-out queues nothing a lane has taken.
    expect(await lanes.enqueue(runId, 2, ['vm-1', 'vm-2', 'vm-3', 'vm-4'])).toBe(0);
    expect(await redis.zcard(keys.laneQueue(runId))).toBe(0);
    expect(
      await lanes.due('nope@20250101T000000Z', 0, {
        upTo: 0,
        limit: 1,
        fromQueue: 1,
        leaseUntil: 0,
      }),
    ).toBeUndefined();

    // A lane's writes are made while its job is its worker's.
    const { results } = await inActiveJob(prefix, (job, token) =>
      lanes.write(
        runId,
        0,
        [
          { itemKey: 'vm-1', onlyIfStatus: 'queued', update: { status: 'running' }, dueAt: 9_000 },
          // Not running: neither recorded nor moved.
          { itemKey: 'vm-3', onlyIfStatus: 'running', update: { status: 'failed' }, dueAt: null },
          { itemKey: 'vm-2', update: { status: 'succeeded' }, finishRunIfLast: true, dueAt: null },
          // Only its place in the lane.
          { itemKey: 'vm-4', dueAt: 8_000 },
        ],
        ownedJobStep(job, token),
      ),
    );
    expect(results[0]?.stale === false && results[0].record).toMatchObject({
      recorded: true,
      item: { status: 'running' },
    });
    expect(results[1]?.stale === false && results[1].record).toMatchObject({
      recorded: false,
      item: { status: 'queued' },
    });
    expect(results[2]?.stale === false && results[2].record).toMatchObject({
      recorded: true,
      previousStatus: 'queued',
    });
    expect(results[3]).toEqual({ stale: false, fence: undefined, record: undefined });
    expect(await redis.zrange(keys.lane(runId, 0), '0', '-1', 'WITHSCORES')).toEqual([
      'vm-3',
      '7000',
      'vm-4',
      '8000',
      'vm-1',
      '9000',
    ]);
    expect((await store.runs.get(runId))?.counts).toMatchObject({
      queued: 2,
      running: 1,
      succeeded: 1,
    });
    await expect(
      inActiveJob(prefix, (job, token) =>
        lanes.write(
          'nope@20250101T000000Z',
          0,
          [{ itemKey: 'vm-1', update: { status: 'running' } }],
          ownedJobStep(job, token),
        ),
      ),
    ).rejects.toThrow(UnknownRunError);
  });

  it("runs its job's step with the records: when the job is not this worker's, nothing is recorded; its move comes last", async () => {
    const prefix = uniquePrefix('lanes');
    const { store, lanes, keys, runId } = await storeWithItems(prefix, ['vm-1']);
    const write = { itemKey: 'vm-1', update: { status: 'running' as const }, dueAt: null };
    await expect(
      inActiveJob(prefix, (job) =>
        lanes.write(runId, 0, [write], ownedJobStep(job, 'not-the-lock-token')),
      ),
    ).rejects.toThrow(LostJobError);
    expect((await store.items.get(runId, 'vm-1'))?.status).toBe('queued');
    expect(await redis.zcard(keys.lane(runId, 0))).toBe(1);
    const recorded = await inActiveJob(prefix, (job, token) =>
      lanes.write(runId, 0, [write], ownedJobStep(job, token, { moveToNextDue: true })),
    );
    expect(recorded.results[0]).toMatchObject({
      stale: false,
      record: { recorded: true, item: { status: 'running' } },
    });
    // The move saw the lane after the write had taken vm-1 out of it: nothing left to wait
    // for, so the job was not moved (with vm-1 still in it, due at 0, it would have been).
    expect(recorded.stepResult).toBe(0);
  });
  it("fences each item's writes by the step that holds it: a step that lost the item writes nothing, not its record nor its place", async () => {
    const prefix = uniquePrefix('lanes');
    const { store, lanes, keys, runId } = await storeWithItems(prefix, ['vm-1', 'vm-2']);
    const write = (writes: Parameters<LaneQueue['write']>[2]) =>
      inActiveJob(prefix, (job, token) => lanes.write(runId, 0, writes, ownedJobStep(job, token)));

    // Two steps take vm-1 one after the other (a stale one, and the one that took it over).
    const first = await write([
      {
        itemKey: 'vm-1',
        onlyIfStatus: 'queued',
        update: { status: 'running' },
        dueAt: 5_000,
        fence: { take: true },
      },
    ]);
    const stale = first.results[0]?.stale === false ? first.results[0].fence : undefined;
    expect(stale).toBeTypeOf('number');
    const second = await write([{ itemKey: 'vm-1', dueAt: 6_000, fence: { take: true } }]);
    const current = second.results[0]?.stale === false ? second.results[0].fence : undefined;
    expect(current).toBeGreaterThan(stale ?? Infinity);

    // The stale step's end is refused: no record, no move; the current step's is made.
    const late = await write([
      {
        itemKey: 'vm-1',
        update: { status: 'failed', errorCode: 'LATE' },
        dueAt: null,
        fence: { held: stale ?? 0 },
      },
    ]);
    expect(late.results[0]).toEqual({ stale: true });
    expect((await store.items.get(runId, 'vm-1'))?.status).toBe('running');
    expect(await redis.zscore(keys.lane(runId, 0), 'vm-1')).toBe('6000');
    // Nor can it hand the item on to a new trigger.
    const handed = await write([
      {
        itemKey: 'vm-1',
        onlyIfStatus: 'running',
        update: { status: 'running' },
        dueAt: 7_000,
        fence: { take: true, from: stale ?? 0 },
      },
    ]);
    expect(handed.results[0]).toEqual({ stale: true });
    expect(await redis.hget(keys.fences(runId), 'vm-1')).toBe(String(current));

    // The holder hands it on (a new fence), and ends it: the fence is forgotten with its place.
    const on = await write([
      {
        itemKey: 'vm-1',
        onlyIfStatus: 'running',
        update: { status: 'running' },
        dueAt: 7_000,
        fence: { take: true, from: current ?? 0 },
      },
    ]);
    const next = on.results[0]?.stale === false ? on.results[0].fence : undefined;
    expect(next).toBeGreaterThan(current ?? Infinity);
    const ended = await write([
      {
        itemKey: 'vm-1',
        onlyIfStatus: 'running',
        update: { status: 'succeeded' },
        finishRunIfLast: true,
        dueAt: null,
        fence: { held: next ?? 0 },
      },
    ]);
    expect(ended.results[0]).toMatchObject({
      stale: false,
      fence: undefined,
      record: { recorded: true },
    });
    expect(await redis.hexists(keys.fences(runId), 'vm-1')).toBe(0);
    expect(await redis.zscore(keys.lane(runId, 0), 'vm-1')).toBeNull();

    // A fence is never drawn twice: a write of any earlier step finds a different number.
    const again = await write([{ itemKey: 'vm-2', dueAt: 1_000, fence: { take: true } }]);
    const drawn = again.results[0]?.stale === false ? again.results[0].fence : undefined;
    expect(drawn).toBeGreaterThan(next ?? Infinity);
    // A take not recorded (its status changed) draws nothing.
    const refused = await write([
      {
        itemKey: 'vm-2',
        onlyIfStatus: 'running',
        update: { status: 'running' },
        dueAt: 2_000,
        fence: { take: true },
      },
    ]);
    expect(refused.results[0]).toMatchObject({
      stale: false,
      fence: drawn,
      record: { recorded: false },
    });
    expect(await redis.zscore(keys.lane(runId, 0), 'vm-2')).toBe('1000');
  });
});

/**
 * A lane's job records its items' new states and moves itself to the delayed set in one script,
 * built from BullMQ's own moveToDelayed (src/queue/delayed-move.ts): this checks it against a
 * real BullMQ worker, as the snapshot lanes use it.
 */
describe('LaneQueue.write with ownedJobStep', () => {
  it('records the items and delays the job until its lane is next due, in one step; with the lane empty the job completes', async () => {
    const prefix = uniquePrefix('step');
    const { store, lanes, keys, runId } = await storeWithItems(prefix, ['vm-1', 'vm-2']);
    const queue = new Queue('steps', { connection: redis, prefix });
    const seen: { run: number; statuses: (string | undefined)[]; at: number }[] = [];
    const worker = new Worker(
      'steps',
      async (job: Job, token?: string) => {
        const statuses = [
          (await store.items.get(runId, 'vm-1'))?.status,
          (await store.items.get(runId, 'vm-2'))?.status,
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
        const { stepResult } = await lanes.write(runId, 0, writes, step);
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
      expect(await store.items.get(runId, 'vm-2')).toMatchObject({
        status: 'succeeded',
        platformJobId: 'JOB-2',
      });
      expect(await redis.zcard(keys.lane(runId, 0))).toBe(0);
    } finally {
      await worker.close();
      await queue.close();
    }
  });

  it('refuses without the lock (another worker took the job): nothing is recorded', async () => {
    const prefix = uniquePrefix('step');
    const { store, lanes, keys, runId } = await storeWithItems(prefix, ['vm-1']);
    const queue = new Queue('steps', { connection: redis, prefix });
    let outcome: unknown;
    const worker = new Worker(
      'steps',
      async (job: Job) => {
        try {
          await lanes.write(
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
      expect((await store.items.get(runId, 'vm-1'))?.status).toBe('queued');
      expect(await redis.zscore(keys.lane(runId, 0), 'vm-1')).toBe('0');
    } finally {
      await worker.close();
      await queue.close();
    }
  });

  it('starts the count of stalls again: a lane that records progress outlives any number of worker kills', async () => {
    const prefix = uniquePrefix('step');
    const { lanes, runId } = await storeWithItems(prefix, ['vm-1']);
    const queue = new Queue('steps', { connection: redis, prefix });
    const worker = new Worker(
      'steps',
      async (job: Job, token?: string) => {
        // As BullMQ's stall check counts a job taken back from a dead worker.
        await redis.hset(`${prefix}:steps:${job.id ?? ''}`, 'stc', 4);
        await lanes.write(
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
});

/**
 * The end of a lane's wake (src/job-kinds/snapshot/lanes/snapshot-lane.ts): with items due at once, the
 * job stays this worker's unless another job waits for a slot or the queue is paused.
 */
describe('LaneQueue.write with ownedJobStep and stayIfDueWithinMs', () => {
  async function endOfWake(options: {
    readonly dueInMs: number;
    readonly before?: (queue: Queue, prefix: string) => Promise<void>;
  }) {
    const prefix = uniquePrefix('step');
    const { lanes, keys, runId } = await storeWithItems(prefix, ['vm-1']);
    await redis.zadd(keys.lane(runId, 0), Date.now() + options.dueInMs, 'vm-1');
    const queue = new Queue('steps', { connection: redis, prefix });
    const results: { stepResult: number; lock: string | null; state: string }[] = [];
    const worker = new Worker(
      'steps',
      async (job: Job, token?: string) => {
        if (job.id !== 'lane-0') return 'other';
        if (results.length > 0) return 'done';
        await options.before?.(queue, prefix);
        const { stepResult } = await lanes.write(
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
