import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlaHolds } from '../../../src/job-kinds/sla-window/sla-holds.js';
import { WindowKeys } from '../../../src/job-kinds/sla-window/window-keys.js';
import type { WindowTarget } from '../../../src/job-kinds/sla-window/window-target.js';
import { connectTestRedis, uniquePrefix } from '../../testkit/redis-connection.js';

let redis: Redis;

beforeAll(() => {
  redis = connectTestRedis();
});

afterAll(async () => {
  await redis.quit();
});

const T0 = Date.parse('2025-03-01T22:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000);

function fixture(): { holds: SlaHolds; target: WindowTarget } {
  const holds = new SlaHolds(redis, new WindowKeys(uniquePrefix('holds')));
  const target = {
    slaDomainId: 'gold',
    slaDomainName: 'Gold',
    clusterId: 'cl01',
    clusterName: 'dc1-prod-cl01',
  };
  return { holds, target };
}

describe('SlaHolds', () => {
  it('resumes only when the last of overlapping windows ends', async () => {
    const { holds, target } = fixture();
    expect(await holds.acquire('a', target, at(10), 'NOT_PAUSED', at(0))).toEqual({
      decision: 'created',
      owner: 'paw',
      otherHolders: 0,
    });
    // B sees the pause A made, but the record says it is paw's.
    expect(await holds.acquire('b', target, at(20), 'PAUSED', at(2))).toEqual({
      decision: 'joined',
      owner: 'paw',
      otherHolders: 1,
    });
    expect(await holds.release('a', target, at(10))).toMatchObject({
      result: 'still-held',
      otherHolders: 1,
    });
    await holds.finish('a', target);
    expect(await holds.release('b', target, at(20))).toMatchObject({ result: 'resume' });
    await holds.finish('b', target);
    expect(await holds.describe(target)).toBeUndefined();
  });

  it('keeps a retry on the decision first made, even when the pause now reads PAUSED', async () => {
    const { holds, target } = fixture();
    await holds.acquire('a', target, at(10), 'NOT_PAUSED', at(0));
    expect(await holds.acquire('a', target, at(10), 'PAUSED', at(1))).toMatchObject({
      decision: 'held',
      owner: 'paw',
    });
  });

  it("never resumes someone else's pause, and takes over once it was lifted", async () => {
    const { holds, target } = fixture();
    expect(await holds.acquire('a', target, at(10), 'PAUSED', at(0))).toMatchObject({
      decision: 'created',
      owner: 'other',
    });
    expect(await holds.release('a', target, at(10))).toMatchObject({
      result: 'left-alone',
      owner: 'other',
    });
    await holds.finish('a', target);
    expect(await holds.describe(target)).toBeUndefined();

    await holds.acquire('b', target, at(30), 'PAUSED', at(20));
    // The administrator resumed it during B's window; C pauses it, and that pause is paw's.
    expect(await holds.acquire('c', target, at(40), 'NOT_PAUSED', at(25))).toMatchObject({
      decision: 'joined',
      owner: 'paw',
    });
    expect(await holds.release('b', target, at(30))).toMatchObject({ result: 'still-held' });
    await holds.finish('b', target);
    expect(await holds.release('c', target, at(40))).toMatchObject({ result: 'resume' });
  });

  it('drops a hold whose window is over when the next window ends', async () => {
    const { holds, target } = fixture();
    await holds.acquire('a', target, at(10), 'NOT_PAUSED', at(0));
    await holds.acquire('b', target, at(30), 'PAUSED', at(5));
    // A's resume never ran; B ends: B is the last open window, and resumes it.
    expect(await holds.release('b', target, at(30))).toMatchObject({ result: 'resume' });
    await holds.finish('b', target);
    expect(await holds.release('a', target, at(31))).toMatchObject({ result: 'not-held' });
  });

  it('takes no hold on an UNKNOWN state, nor for a window that already ended', async () => {
    const { holds, target } = fixture();
    expect(await holds.acquire('a', target, at(10), 'UNKNOWN', at(0))).toMatchObject({
      decision: 'unknown',
      owner: undefined,
    });
    expect(await holds.describe(target)).toBeUndefined();
    await holds.markEnded('b', 60);
    expect(await holds.acquire('b', target, at(10), 'NOT_PAUSED', at(0))).toMatchObject({
      decision: 'window-over',
    });
    expect(await holds.holdsOf('b')).toEqual([]);
  });
});
