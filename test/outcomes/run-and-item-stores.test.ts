import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutcomeQueries } from '../../src/outcomes/outcome-queries.js';
import { Outcomes } from '../../src/outcomes/outcomes.js';
import { UnknownRunError } from '../../src/outcomes/unknown-run-error.js';
import { connectTestRedis, uniquePrefix } from '../testkit/redis-connection.js';
import { createNightlyRun } from '../testkit/nightly-run.js';

let redis: Redis;

beforeAll(() => {
  redis = connectTestRedis();
});

afterAll(async () => {
  await redis.quit();
});

function newStore(): Outcomes {
  return new Outcomes(redis, uniquePrefix('outcomes'));
}

const fireTime = new Date('2025-06-01T01:00:00Z');

function queuedRun(store: Outcomes, runId = 'nightly@20250601T010000Z'): Promise<string> {
  return createNightlyRun(store, runId, fireTime);
}

describe('runs (RunStore)', () => {
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
    expect(await store.runs.create(run)).toEqual({ created: true, status: 'queued' });
    expect(await store.runs.create({ ...run, status: 'skipped' })).toEqual({
      created: false,
      status: 'queued',
    });
    const stored = await store.runs.get(run.runId);
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
    const first = await store.runs.start(runId);
    expect(first).toMatchObject({ started: true, previousStatus: 'queued' });
    expect(first.run).toMatchObject({ status: 'running', attempts: 1 });
    expect(first.run.startedAt).toBeDefined();
    // A retry after a crash takes the run again.
    expect(await store.runs.start(runId)).toMatchObject({
      started: true,
      previousStatus: 'running',
    });
    expect((await store.runs.get(runId))?.attempts).toBe(2);
    await store.runs.finish(runId);
    const again = await store.runs.start(runId);
    expect(again).toMatchObject({ started: false, previousStatus: 'succeeded' });
    await expect(store.runs.start('nope@20250101T000000Z')).rejects.toThrow(UnknownRunError);
  });

  it('records a start deferred to the next write with it: running, the first start time, one more attempt', async () => {
    const store = newStore();
    const runId = await queuedRun(store);
    const started = await store.runs.start(runId, { recordWithNextWrite: true });
    expect(started).toMatchObject({ started: true, previousStatus: 'queued' });
    // Nothing is written until the run's next write.
    expect(await store.runs.get(runId)).toMatchObject({ status: 'queued', attempts: 0 });
    await store.items.create(runId, [['vm-1', { status: 'queued' }]]);
    const first = await store.runs.get(runId);
    expect(first).toMatchObject({ status: 'running', attempts: 1 });
    expect(first?.startedAt).toBeDefined();
    // A retry: the start is recorded by the finish, the first start time kept.
    await store.runs.start(runId, { recordWithNextWrite: true });
    await store.runs.finish(runId, { status: 'succeeded' });
    expect(await store.runs.get(runId)).toMatchObject({
      status: 'succeeded',
      attempts: 2,
      startedAt: first?.startedAt,
    });
    expect(await store.runs.start(runId, { recordWithNextWrite: true })).toMatchObject({
      started: false,
      previousStatus: 'succeeded',
    });
    await expect(
      store.runs.start('nope@20250101T000000Z', { recordWithNextWrite: true }),
    ).rejects.toThrow(UnknownRunError);
  });

  it('keeps item counters right through updates, repeats and status changes', async () => {
    const store = newStore();
    const runId = await queuedRun(store);
    await store.runs.start(runId);
    await store.items.record(runId, 'vm-1', {
      status: 'queued',
      target: 'vm-1',
      targetName: 'prod-vm-1',
    });
    await store.items.record(runId, 'vm-2', { status: 'queued', target: 'vm-2' });
    await store.items.record(runId, 'vm-1', { status: 'running', platformJobId: 'CREATE_X:::0' });
    // The same update again (a retried job) changes nothing.
    await store.items.record(runId, 'vm-1', { status: 'running', platformJobId: 'CREATE_X:::0' });
    await store.items.record(runId, 'vm-2', {
      status: 'failed',
      errorCode: 'CLUSTER_UNAVAILABLE',
      errorMessage: 'cluster is disconnected',
    });
    let run = await store.runs.get(runId);
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
    const { item, previousStatus, runCounts } = await store.items.record(runId, 'vm-2', {
      status: 'succeeded',
      errorCode: null,
      errorMessage: null,
      attempts: 2,
      finishedAt: new Date('2025-06-01T01:10:00Z'),
    });
    expect(previousStatus).toBe('failed');
    // The counts come back with the update: vm-1 is still running, so this was not the last.
    expect(runCounts).toMatchObject({ total: 2, running: 1, succeeded: 1, failed: 0 });
    const last = await store.items.record(runId, 'vm-1', { status: 'succeeded' });
    expect(last.runCounts).toMatchObject({ total: 2, queued: 0, running: 0, succeeded: 2 });
    await store.items.record(runId, 'vm-1', { status: 'running' });
    expect(item).toMatchObject({
      itemKey: 'vm-2',
      target: 'vm-2',
      status: 'succeeded',
      attempts: 2,
    });
    expect(item.errorCode).toBeUndefined();
    expect(item.finishedAt).toBe('2025-06-01T01:10:00.000Z');
    expect(await store.items.get(runId, 'vm-1')).toMatchObject({
      status: 'running',
      targetName: 'prod-vm-1',
      platformJobId: 'CREATE_X:::0',
    });
    run = await store.runs.get(runId);
    expect(run?.counts).toMatchObject({ total: 2, running: 1, succeeded: 1, failed: 0 });
    await expect(store.items.record('nope@1', 'x', { status: 'queued' })).rejects.toThrow(
      UnknownRunError,
    );
  });

  it('derives the final status from the items unless told, and never overrides skipped or missed', async () => {
    const store = newStore();
    const ok = await queuedRun(store, 'a@20250601T010000Z');
    await store.items.record(ok, '1', { status: 'succeeded' });
    await store.items.record(ok, '2', {
      status: 'skipped',
      reason: 'LINUX_FILESET cannot be snapshotted',
    });
    expect(await store.runs.finish(ok)).toBe('succeeded');

    const bad = await queuedRun(store, 'b@20250601T010000Z');
    await store.items.record(bad, '1', { status: 'succeeded' });
    await store.items.record(bad, '2', { status: 'timed-out' });
    expect(await store.runs.finish(bad)).toBe('failed');
    expect(await store.runs.finish(bad, { status: 'canceled', errorCode: 'SHUTDOWN' })).toBe(
      'canceled',
    );
    expect(await store.runs.get(bad)).toMatchObject({ status: 'canceled', errorCode: 'SHUTDOWN' });

    await store.runs.create({
      runId: 'c@20250601T010000Z',
      definitionId: 'nightly',
      kind: 'snapshot',
      fireTime,
      trigger: 'cron',
      status: 'skipped',
      reason: 'previous run still running',
    });
    expect(await store.runs.finish('c@20250601T010000Z')).toBe('skipped');
  });

  it('answers "is a previous run still active" for the overlap policy', async () => {
    const store = newStore();
    expect(await store.runs.activeBefore('nightly', fireTime)).toBeUndefined();
    const earlier = new Date(fireTime.getTime() - 86_400_000);
    await store.runs.create({
      runId: 'nightly@20250531T010000Z',
      definitionId: 'nightly',
      kind: 'snapshot',
      fireTime: earlier,
      trigger: 'cron',
      status: 'queued',
    });
    expect((await store.runs.activeBefore('nightly', fireTime))?.runId).toBe(
      'nightly@20250531T010000Z',
    );
    // Only runs fired before the given time count.
    expect(await store.runs.activeBefore('nightly', earlier)).toBeUndefined();
    expect(await store.runs.activeBefore('other', fireTime)).toBeUndefined();
    await store.runs.start('nightly@20250531T010000Z');
    expect(await store.runs.activeBefore('nightly', fireTime)).toBeDefined();
    await store.runs.finish('nightly@20250531T010000Z');
    expect(await store.runs.activeBefore('nightly', fireTime)).toBeUndefined();
  });
});

describe('items in one round trip (ItemStore)', () => {
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
    expect(await store.items.create(runId, [...items, skipped])).toBe(1204);
    await store.items.record(runId, 'vm-7', { status: 'succeeded' });
    // A fan-out repeated after a crash: nothing is created again, vm-7 stays succeeded.
    expect(await store.items.create(runId, [...items, skipped])).toBe(0);
    expect((await store.items.get(runId, 'vm-7'))?.status).toBe('succeeded');
    expect((await store.runs.get(runId))?.counts).toMatchObject({
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
    await expect(store.items.create('nope@1', items)).rejects.toThrow(UnknownRunError);
  });

  it('records only if the item has the status asked for, merging details, and says what is there otherwise', async () => {
    const store = newStore();
    const runId = await queuedRun(store);
    await store.items.create(runId, [
      ['vm-1', { status: 'queued', target: 'vm-1', details: { clusterId: 'c-1' } }],
    ]);
    const intent = { status: 'running', details: { triggerAttemptAt: 'T1' } } as const;
    const onlyIfQueued = { onlyIfStatus: 'queued', mergeDetails: true } as const;
    const first = await store.items.record(runId, 'vm-1', intent, onlyIfQueued);
    if (!first.recorded) throw new Error('the queued item was not recorded');
    expect(first.item.details).toEqual({ clusterId: 'c-1', triggerAttemptAt: 'T1' });
    // A second worker with the same job: nothing recorded, the item as the first left it.
    const second = await store.items.record(
      runId,
      'vm-1',
      { status: 'running', details: { triggerAttemptAt: 'T2' } },
      onlyIfQueued,
    );
    expect(second).toMatchObject({
      recorded: false,
      item: { status: 'running', details: { clusterId: 'c-1', triggerAttemptAt: 'T1' } },
    });
    expect((await store.items.record(runId, 'vm-9', intent, onlyIfQueued)).recorded).toBe(false);
    expect((await store.runs.get(runId))?.counts).toMatchObject({ total: 1, running: 1 });
  });

  it('finishes the run in the step that ends its last item, and tells the observer once', async () => {
    const finished: string[] = [];
    const store = new Outcomes(redis, uniquePrefix('outcomes'), {
      runFinished: (run) => finished.push(`${run.runId} ${run.status}`),
    });
    const runId = await queuedRun(store);
    await store.runs.start(runId);
    await store.items.create(runId, [
      ['vm-1', { status: 'queued' }],
      ['vm-2', { status: 'queued' }],
    ]);
    const first = await store.items.record(
      runId,
      'vm-1',
      { status: 'succeeded' },
      { finishRunIfLast: true },
    );
    expect(first.runFinished).toBeUndefined();
    const last = await store.items.record(
      runId,
      'vm-2',
      { status: 'failed', errorCode: 'X' },
      { finishRunIfLast: true },
    );
    expect(last.runFinished).toBe('failed');
    expect(await store.runs.get(runId)).toMatchObject({ status: 'failed' });
    // The same end again (a retried job): the run stays as it is, the observer is not told again.
    await store.items.record(runId, 'vm-2', { status: 'failed' }, { finishRunIfLast: true });
    expect(finished).toEqual([`${runId} failed`]);
  });
});
