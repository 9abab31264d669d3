import { describe, expect, it } from 'vitest';
import { TokenBucketGate } from '../../../src/platform/rate-limit/token-bucket-gate.js';

describe('TokenBucketGate', () => {
  it('lets a burst through at once and then serves callers in order', async () => {
    const gate = new TokenBucketGate({ requestsPerSecond: 200, burst: 2 });
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, (_, index) => gate.acquire().then(() => order.push(index))),
    );
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('halves the rate on a 429, counts a wave once, and recovers over time', () => {
    let now = 1_000_000;
    const gate = new TokenBucketGate({ requestsPerSecond: 40, now: () => now, recoveryMs: 10_000 });
    gate.rateLimited();
    expect(gate.currentRate()).toBe(20);
    gate.rateLimited(); // same wave: during the pause
    expect(gate.currentRate()).toBe(20);
    now += 500 + 5_000; // pause over, half the recovery window gone
    expect(gate.currentRate()).toBeCloseTo(30, 5);
    now += 10_000;
    expect(gate.currentRate()).toBe(40);
  });

  it('holds every waiter during the pause after a 429', async () => {
    const gate = new TokenBucketGate({ requestsPerSecond: 1000, burst: 1, penaltyMs: 300 });
    await gate.acquire();
    gate.rateLimited();
    const started = Date.now();
    await Promise.all([gate.acquire(), gate.acquire()]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it('drops a waiter whose signal aborts', async () => {
    const gate = new TokenBucketGate({ requestsPerSecond: 1, burst: 1 });
    await gate.acquire();
    const controller = new AbortController();
    const waiting = gate.acquire(controller.signal);
    controller.abort(new Error('caller gave up'));
    await expect(waiting).rejects.toThrow('caller gave up');
  });
});
