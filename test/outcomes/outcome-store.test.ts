import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutcomeQueries } from '../../src/outcomes/outcome-queries.js';
import { OutcomeStore, UnknownRunError } from '../../src/outcomes/outcome-store.js';
import { connectTestRedis, uniquePrefix } from '../support/redis-connection.js';

let redis: Redis;

beforeAll(() => {
  redis = connectTestRedis();
});

afterAll(async () => {
  await redis.quit();
});

function newStore(): OutcomeStore {
  return new OutcomeStore(redis, uniquePrefix('outcomes'));
}

const fireTime = new Date('2025-06-01T01:00:00Z');

async function queuedRun(store: OutcomeStore, runId = 'nightly@20250601T010000Z') {
  await store.createRun({
    runId,
    definitionId: 'nightly',
    kind: 'snapshot',
    fireTime,
    trigger: 'cron',
    status: 'queued',
  });
  return runId;
}

describe('OutcomeStore runs', () => {
  it('creates a run once: a second create reports the existing one', async () => {
    const store = newStore();
    const run = {
      runId: 'nightly@20250601T010000Z',
      definitionId: 'nightly',
      kind: 'snapshot',
      fireTime,
      trigger: 'cron',
      status: 'queued',
    } as const;
    expect(await store.createRun(run)).toEqual({ created: true, status: 'queued' });
    expect(await store.createRun({ ...run, status: 'skipped' })).toEqual({
      created: false,
      status: 'queued',
    });
    const stored = await store.getRun(run.runId);
    expect(stored).toMatchObject({
      runId: run.runId,
      definitionId: 'nightly',
      kind: 'snapshot',
      fireTime: fireTime.toISOString(),
      trigger: 'cron',
      status: 'queued',
      attempts: 0,
      counts: { total: 0, succeeded: 0, failed: 0 },
    });
  });

  it('starts a queued run, counts attempts, and refuses to restart a finished one', async () => {
    const store = newStore();
    const runId = await queuedRun(store);
    const first = await store.startRun(runId);
    expect(first).toMatchObject({ started: true, previousStatus: 'queued' });
    expect(first.run).toMatchObject({ status: 'running', attempts: 1 });
    expect(first.run.startedAt).toBeDefined();
    // A retry after a crash takes the run again.
    expect(await store.startRun(runId)).toMatchObject({ started: true, previousStatus: 'running' });
    expect((await store.getRun(runId))?.attempts).toBe(2);
    await store.finishRun(runId);
    const again = await store.startRun(runId);
    expect(again).toMatchObject({ started: false, previousStatus: 'succeeded' });
    await expect(store.startRun('nope@20250101T000000Z')).rejects.toThrow(UnknownRunError);
  });

  it('records a start deferred to the next write with it: running, the first start time, one more attempt', async () => {
    const store = newStore();
    const runId = await queuedRun(store);
    const started = await store.startRun(runId, { recordWithNextWrite: true });
    expect(started).toMatchObject({ started: true, previousStatus: 'queued' });
    // Nothing is written until the run's next write.
    expect(await store.getRun(runId)).toMatchObject({ status: 'queued', attempts: 0 });
    await store.createItems(runId, [['vm-1', { status: 'queued' }]]);
    const first = await store.getRun(runId);
    expect(first).toMatchObject({ status: 'running', attempts: 1 });
    expect(first?.startedAt).toBeDefined();
    // A retry: the start is recorded by the finish, the first start time kept.
    await store.startRun(runId, { recordWithNextWrite: true });
    await store.finishRun(runId, { status: 'succeeded' });
    expect(await store.getRun(runId)).toMatchObject({
      status: 'succeeded',
      attempts: 2,
      startedAt: first?.startedAt,
    });
    expect(await store.startRun(runId, { recordWithNextWrite: true })).toMatchObject({
      started: false,
      previousStatus: 'succeeded',
    });
    await expect(
      store.startRun('nope@20250101T000000Z', { recordWithNextWrite: true }),
    ).rejects.toThrow(UnknownRunError);
  });

  it('keeps item counters right through updates, repeats and status changes', async () => {
    const store = newStore();
    const runId = await queuedRun(store);
    await store.startRun(runId);
    await store.recordItem(runId, 'vm-1', {
      status: 'queued',
      target: 'vm-1',
      targetName: 'prod-vm-1',
    });
    await store.recordItem(runId, 'vm-2', { status: 'queued', target: 'vm-2' });
    await store.recordItem(runId, 'vm-1', { status: 'running', platformJobId: 'CREATE_X:::0' });
    // The same update again (a retried job) changes nothing.
    await store.recordItem(runId, 'vm-1', { status: 'running', platformJobId: 'CREATE_X:::0' });
    await store.recordItem(runId, 'vm-2', {
      status: 'failed',
      errorCode: 'CLUSTER_UNAVAILABLE',
      errorMessage: 'cluster is disconnected',
    });
    let run = await store.getRun(runId);
    expect(run?.counts).toEqual({
      total: 2,
      queued: 0,
      running: 1,
      succeeded: 0,
      failed: 1,
      skipped: 0,
      timedOut: 0,
      canceled: 0,
    });

    // A retry succeeds: the error is cleared with null, other fields are kept.
    const { item, previousStatus, runCounts } = await store.recordItem(runId, 'vm-2', {
      status: 'succeeded',
      errorCode: null,
      errorMessage: null,
      attempts: 2,
      finishedAt: new Date('2025-06-01T01:10:00Z'),
    });
    expect(previousStatus).toBe('failed');
    // The counts come back with the update: vm-1 is still running, so this was not the last.
    expect(runCounts).toMatchObject({ total: 2, running: 1, succeeded: 1, failed: 0 });
    const last = await store.recordItem(runId, 'vm-1', { status: 'succeeded' });
    expect(last.runCounts).toMatchObject({ total: 2, queued: 0, running: 0, succeeded: 2 });
    await store.recordItem(runId, 'vm-1', { status: 'running' });
    expect(item).toMatchObject({
      itemKey: 'vm-2',
      target: 'vm-2',
      status: 'succeeded',
      attempts: 2,
    });
    expect(item.errorCode).toBeUndefined();
    expect(item.finishedAt).toBe('2025-06-01T01:10:00.000Z');
    expect(await store.getItem(runId, 'vm-1')).toMatchObject({
      status: 'running',
      targetName: 'prod-vm-1',
      platformJobId: 'CREATE_X:::0',
    });
    run = await store.getRun(runId);
    expect(run?.counts).toMatchObject({ total: 2, running: 1, succeeded: 1, failed: 0 });
    await expect(store.recordItem('nope@1', 'x', { status: 'queued' })).rejects.toThrow(
      UnknownRunError,
    );
  });

  it('derives the final status from the items unless told, and never overrides skipped or missed', async () => {
    const store = newStore();
    const ok = await queuedRun(store, 'a@20250601T010000Z');
    await store.recordItem(ok, '1', { status: 'succeeded' });
    await store.recordItem(ok, '2', {
      status: 'skipped',
      reason: 'LINUX_FILESET cannot be snapshotted',
    });
    expect(await store.finishRun(ok)).toBe('succeeded');

    const bad = await queuedRun(store, 'b@20250601T010000Z');
    await store.recordItem(bad, '1', { status: 'succeeded' });
    await store.recordItem(bad, '2', { status: 'timed-out' });
    expect(await store.finishRun(bad)).toBe('failed');
    expect(await store.finishRun(bad, { status: 'canceled', errorCode: 'SHUTDOWN' })).toBe(
      'canceled',
    );
    expect(await store.getRun(bad)).toMatchObject({ status: 'canceled', errorCode: 'SHUTDOWN' });

    await store.createRun({
      runId: 'c@20250601T010000Z',
      definitionId: 'nightly',
      kind: 'snapshot',
      fireTime,
      trigger: 'cron',
      status: 'skipped',
      reason: 'previous run still running',
    });
    expect(await store.finishRun('c@20250601T010000Z')).toBe('skipped');
  });

  it('answers "is a previous run still active" for the overlap policy', async () => {
    const store = newStore();
    expect(await store.activeRunBefore('nightly', fireTime)).toBeUndefined();
    const earlier = new Date(fireTime.getTime() - 86_400_000);
    await store.createRun({
      runId: 'nightly@20250531T010000Z',
      definitionId: 'nightly',
      kind: 'snapshot',
      fireTime: earlier,
      trigger: 'cron',
      status: 'queued',
    });
    expect((await store.activeRunBefore('nightly', fireTime))?.runId).toBe(
      'nightly@20250531T010000Z',
    );
    // Only runs fired before the given time count.
    expect(await store.activeRunBefore('nightly', earlier)).toBeUndefined();
    expect(await store.activeRunBefore('other', fireTime)).toBeUndefined();
    await store.startRun('nightly@20250531T010000Z');
    expect(await store.activeRunBefore('nightly', fireTime)).toBeDefined();
    await store.finishRun('nightly@20250531T010000Z');
    expect(await store.activeRunBefore('nightly', fireTime)).toBeUndefined();
  });
});

describe('OutcomeStore items in one round trip', () => {
  it('creates a fan-out in batches, and a repeat never moves an item back', async () => {
    const store = newStore();
    const runId = await queuedRun(store);
    const items = Array.from({ length: 1203 }, (_, index) => {
      const id = `vm-${index}`;
      return [id, { status: 'queued', target: id, targetName: `prod-${id}` }] as const;
    });
    const skipped = [
      'fileset-1',
      { status: 'skipped', target: 'fileset-1', reason: 'no' },
    ] as const;
    expect(await store.createItems(runId, [...items, skipped])).toBe(1204);
    await store.recordItem(runId, 'vm-7', { status: 'succeeded' });
    // A fan-out repeated after a crash: nothing is created again, vm-7 stays succeeded.
    expect(await store.createItems(runId, [...items, skipped])).toBe(0);
    expect((await store.getItem(runId, 'vm-7'))?.status).toBe('succeeded');
    expect((await store.getRun(runId))?.counts).toMatchObject({
      total: 1204,
      queued: 1202,
      succeeded: 1,
      skipped: 1,
    });
    const queries = new OutcomeQueries(redis, store.keys.base.replace(/:outcomes$/, ''));
    const found = [];
    for await (const item of queries.items({ runId, statuses: ['skipped'] })) found.push(item);
    expect(found.map((item) => item.itemKey)).toEqual(['fileset-1']);
    const named = [];
    for await (const item of queries.items({ target: 'PROD-VM-1200' })) named.push(item.itemKey);
    expect(named).toEqual(['vm-1200']);
    await expect(store.createItems('nope@1', items)).rejects.toThrow(UnknownRunError);
  });

  it('records only if the item has the status asked for, merging details, and says what is there otherwise', async () => {
    const store = newStore();
    const runId = await queuedRun(store);
    await store.createItems(runId, [
      ['vm-1', { status: 'queued', target: 'vm-1', details: { clusterId: 'c-1' } }],
    ]);
    const intent = { status: 'running', details: { triggerAttemptAt: 'T1' } } as const;
    const first = await store.recordItemIf(runId, 'vm-1', 'queued', intent);
    if (!first.recorded) throw new Error('the queued item was not recorded');
    expect(first.item.details).toEqual({ clusterId: 'c-1', triggerAttemptAt: 'T1' });
    // A second worker with the same job: nothing recorded, the item as the first left it.
    const second = await store.recordItemIf(runId, 'vm-1', 'queued', {
      status: 'running',
      details: { triggerAttemptAt: 'T2' },
    });
    expect(second).toMatchObject({
      recorded: false,
      item: { status: 'running', details: { clusterId: 'c-1', triggerAttemptAt: 'T1' } },
    });
    expect((await store.recordItemIf(runId, 'vm-9', 'queued', intent)).recorded).toBe(false);
    expect((await store.getRun(runId))?.counts).toMatchObject({ total: 1, running: 1 });
  });

  it('queues items for lanes once, gives a lane its due items and its share of the queue in one read, and records many items in one script', async () => {
    const store = newStore();
    const runId = await queuedRun(store);
    await store.createItems(runId, [
      ['vm-1', { status: 'queued', target: 'vm-1' }],
      ['vm-2', { status: 'queued', target: 'vm-2' }],
      ['vm-3', { status: 'queued', target: 'vm-3' }],
      ['vm-4', { status: 'queued', target: 'vm-4' }],
    ]);
    expect(await store.laneCount(runId, 2)).toBe(2);
    // The first count stays.
    expect(await store.laneCount(runId, 5)).toBe(2);
    expect(await store.enqueueForLanes(runId, 2, ['vm-1', 'vm-2', 'vm-3'])).toBe(3);

    // A lane with no room for new items takes none from the queue.
    const none = await store.dueItems(runId, 1, {
      upTo: 1_000,
      limit: 2,
      fromQueue: 0,
      leaseUntil: 6_000,
    });
    expect(none).toMatchObject({ laneSize: 0, queued: 3, items: [] });
    // Lane 0 has one item of its own, due at 1000: the queue comes first.
    await redis.zadd(store.keys.lane(runId, 0), '1000', 'vm-4');
    const first = await store.dueItems(runId, 0, {
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
    const second = await store.dueItems(runId, 0, {
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
    expect(await store.enqueueForLanes(runId, 2, ['vm-1', 'vm-2', 'vm-3', 'vm-4'])).toBe(0);
    expect(await redis.zcard(store.keys.laneQueue(runId))).toBe(0);
    expect(
      await store.dueItems('nope@20250101T000000Z', 0, {
        upTo: 0,
        limit: 1,
        fromQueue: 1,
        leaseUntil: 0,
      }),
    ).toBeUndefined();

    const { results } = await store.recordItems(runId, 0, [
      { itemKey: 'vm-1', onlyIfStatus: 'queued', update: { status: 'running' }, dueAt: 9_000 },
      // Not running: neither recorded nor moved.
      { itemKey: 'vm-3', onlyIfStatus: 'running', update: { status: 'failed' }, dueAt: null },
      { itemKey: 'vm-2', update: { status: 'succeeded' }, finishRunIfLast: true, dueAt: null },
      // Only its place in the lane.
      { itemKey: 'vm-4', dueAt: 8_000 },
    ]);
    expect(results[0]).toMatchObject({ recorded: true, item: { status: 'running' } });
    expect(results[1]).toMatchObject({ recorded: false, item: { status: 'queued' } });
    expect(results[2]).toMatchObject({ recorded: true, previousStatus: 'queued' });
    expect(results[3]).toBeUndefined();
    expect(await redis.zrange(store.keys.lane(runId, 0), '0', '-1', 'WITHSCORES')).toEqual([
      'vm-3',
      '7000',
      'vm-4',
      '8000',
      'vm-1',
      '9000',
    ]);
    expect((await store.getRun(runId))?.counts).toMatchObject({
      queued: 2,
      running: 1,
      succeeded: 1,
    });
    await expect(
      store.recordItems('nope@20250101T000000Z', 0, [
        { itemKey: 'vm-1', update: { status: 'running' } },
      ]),
    ).rejects.toThrow(UnknownRunError);
  });

  it('runs another atomic step with the records: when its check refuses, nothing is recorded; its then comes last', async () => {
    const store = newStore();
    const runId = await queuedRun(store);
    await store.createItems(runId, [['vm-1', { status: 'queued', target: 'vm-1' }]]);
    await redis.zadd(store.keys.lane(runId, 0), '0', 'vm-1');
    const flag = `${store.keys.base}:test-flag`;
    const step = (allow: boolean) => ({
      name: 'test-check-then-count',
      check: `if ARGV[1] ~= '1' then return -7 end\nredis.call('SET', KEYS[1], 'checked')\nreturn 0`,
      then: `return redis.call('ZCARD', laneKey) + 10`,
      keys: [flag],
      args: [allow ? '1' : '0'],
      refused: (code: number) => new Error(`refused with ${code}`),
    });
    const write = { itemKey: 'vm-1', update: { status: 'running' as const }, dueAt: null };
    await expect(store.recordItems(runId, 0, [write], step(false))).rejects.toThrow(
      'refused with -7',
    );
    expect((await store.getItem(runId, 'vm-1'))?.status).toBe('queued');
    expect(await redis.get(flag)).toBeNull();
    expect(await redis.zcard(store.keys.lane(runId, 0))).toBe(1);
    const recorded = await store.recordItems(runId, 0, [write], step(true));
    expect(recorded.results[0]).toMatchObject({ recorded: true, item: { status: 'running' } });
    // The then step saw the lane after the write had taken vm-1 out of it.
    expect(recorded.stepResult).toBe(10);
    expect(await redis.get(flag)).toBe('checked');
  });

  it('finishes the run in the step that ends its last item, and tells the observer once', async () => {
    const finished: string[] = [];
    const store = new OutcomeStore(redis, uniquePrefix('outcomes'), undefined, {
      runFinished: (run) => finished.push(`${run.runId} ${run.status}`),
    });
    const runId = await queuedRun(store);
    await store.startRun(runId);
    await store.createItems(runId, [
      ['vm-1', { status: 'queued' }],
      ['vm-2', { status: 'queued' }],
    ]);
    const first = await store.recordItem(
      runId,
      'vm-1',
      { status: 'succeeded' },
      { finishRunIfLast: true },
    );
    expect(first.runFinished).toBeUndefined();
    const last = await store.recordItem(
      runId,
      'vm-2',
      { status: 'failed', errorCode: 'X' },
      { finishRunIfLast: true },
    );
    expect(last.runFinished).toBe('failed');
    expect(await store.getRun(runId)).toMatchObject({ status: 'failed' });
    // The same end again (a retried job): the run stays as it is, the observer is not told again.
    await store.recordItem(runId, 'vm-2', { status: 'failed' }, { finishRunIfLast: true });
    expect(finished).toEqual([`${runId} failed`]);
  });
});
