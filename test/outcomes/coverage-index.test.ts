import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Outcomes } from '../../src/outcomes/outcomes.js';
import { connectTestRedis, uniquePrefix } from '../testkit/redis-connection.js';
import { createNightlyRun } from '../testkit/nightly-run.js';

let redis: Redis;

beforeAll(() => {
  redis = connectTestRedis();
});

afterAll(async () => {
  await redis.quit();
});

/** A clock the test moves: the index stamps lastSuccessAt and skipped-since with it. */
function clockAt(start: string): { now: Date; clock: () => Date } {
  const state = { now: new Date(start), clock: () => state.now };
  return state;
}

async function night(store: Outcomes, day: number): Promise<string> {
  const fireTime = new Date(Date.UTC(2026, 5, day, 1));
  const runId = `nightly@202606${String(day).padStart(2, '0')}T010000Z`;
  return createNightlyRun(store, runId, fireTime);
}

describe('the coverage index (latest outcome per workload, per definition)', () => {
  it('keeps status, streak, last success, reason and skipped-since across runs', async () => {
    const time = clockAt('2026-06-01T01:05:00Z');
    const store = new Outcomes(redis, uniquePrefix('coverage'), undefined, time.clock);
    const vm = { target: 'vm-1', targetName: 'web-1', action: 'snapshot' } as const;
    const db = { target: 'db-1', targetName: 'sales', action: 'snapshot' } as const;

    // Night 1: vm-1 succeeds (after running); db-1 is skipped at fan-out.
    const first = await night(store, 1);
    await store.items.create(first, [
      ['vm-1', { status: 'queued', ...vm }],
      ['db-1', { status: 'skipped', ...db, reason: 'cluster c-2 is Disconnected' }],
    ]);
    await store.items.record(first, 'vm-1', { status: 'running' });
    expect((await store.coverage.read('nightly')).get('vm-1')).toBeUndefined();
    await store.items.record(first, 'vm-1', { status: 'succeeded' });
    const afterFirst = await store.coverage.read('nightly');
    expect(afterFirst.get('vm-1')).toEqual({
      status: 'succeeded',
      lastRunId: first,
      lastFireMs: Date.UTC(2026, 5, 1, 1),
      failureStreak: 0,
      lastSuccessMs: Date.parse('2026-06-01T01:05:00Z'),
      reason: undefined,
      skippedSinceMs: undefined,
    });
    expect(afterFirst.get('db-1')).toMatchObject({
      status: 'skipped',
      failureStreak: 1,
      reason: 'cluster c-2 is Disconnected',
      skippedSinceMs: Date.parse('2026-06-01T01:05:00Z'),
    });

    // Nights 2 and 3: vm-1 fails; its failed item recorded twice in night 3 counts once.
    for (const day of [2, 3]) {
      time.now = new Date(Date.UTC(2026, 5, day, 1, 5));
      const runId = await night(store, day);
      await store.items.create(runId, [
        ['vm-1', { status: 'queued', ...vm }],
        ['db-1', { status: 'skipped', ...db, reason: 'cluster c-2 is Disconnected' }],
      ]);
      await store.items.record(runId, 'vm-1', {
        status: 'failed',
        errorCode: 'INTERNAL',
        // The workload's id in a message is stored as a mark (compact records): the index spells it.
        errorMessage: `snapshot job of vm-1 failed on night ${day}`,
      });
    }
    await store.items.record('nightly@20260603T010000Z', 'vm-1', { status: 'timed-out' });
    const afterThird = await store.coverage.read('nightly');
    expect(afterThird.get('vm-1')).toMatchObject({
      status: 'timed-out',
      lastRunId: 'nightly@20260603T010000Z',
      failureStreak: 2,
      lastSuccessMs: Date.parse('2026-06-01T01:05:00Z'),
      reason: 'snapshot job of vm-1 failed on night 3',
    });
    expect(afterThird.get('db-1')).toMatchObject({
      status: 'skipped',
      failureStreak: 3,
      skippedSinceMs: Date.parse('2026-06-01T01:05:00Z'),
    });

    // A late write for an older run changes nothing; a success ends the streak.
    await store.items.record(first, 'vm-1', { status: 'failed', errorMessage: 'late' });
    expect((await store.coverage.read('nightly')).get('vm-1')?.failureStreak).toBe(2);
    time.now = new Date(Date.UTC(2026, 5, 4, 1, 5));
    const fourth = await night(store, 4);
    await store.items.create(fourth, [['vm-1', { status: 'succeeded', ...vm }]]);
    expect((await store.coverage.read('nightly')).get('vm-1')).toMatchObject({
      status: 'succeeded',
      failureStreak: 0,
      lastSuccessMs: Date.parse('2026-06-04T01:05:00Z'),
    });

    // A workload the definition no longer covers is forgotten.
    expect(await store.coverage.keepOnly('nightly', ['vm-1'])).toBe(1);
    expect([...(await store.coverage.read('nightly')).keys()]).toEqual(['vm-1']);
  });
});
