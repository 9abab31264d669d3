import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/shared/logger.js';
import { SharedRequestGate } from '../../../src/platform/rate-limit/shared-request-gate.js';
import { startPrivateRedisServer } from '../../../src/redis/private-redis-server.js';
import { connectTestRedis, uniquePrefix } from '../../testkit/redis-connection.js';
import { eventually } from '../../testkit/eventually.js';

/** The request gate shared through Redis, with one connection per gate as separate processes have. */
describe('SharedRequestGate', () => {
  const connections: Redis[] = [];
  const gates: SharedRequestGate[] = [];
  let probe: Redis;

  beforeAll(() => {
    probe = connectTestRedis();
  });
  afterAll(async () => {
    for (const gate of gates) gate.close();
    await Promise.all([probe, ...connections].map((redis) => redis.quit()));
  });

  function gatesOn(
    prefix: string,
    count: number,
    requestsPerSecond: number,
    burst?: number,
    url?: string,
  ) {
    return Array.from({ length: count }, () => {
      const redis =
        url === undefined ? connectTestRedis() : new Redis(url, { maxRetriesPerRequest: null });
      connections.push(redis);
      const gate = new SharedRequestGate({
        redis,
        prefix,
        requestsPerSecond,
        ...(burst === undefined ? {} : { burst }),
        logger: silentLogger(),
      });
      gates.push(gate);
      return gate;
    });
  }

  async function redisNow(): Promise<number> {
    const [seconds, micros] = await probe.time();
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  }

  it('keeps three gates together under one rate (a limiter cannot be faster than its rate)', async () => {
    const prefix = uniquePrefix('gate');
    const gates = gatesOn(prefix, 3, 50, 5);
    const started = Date.now();
    await Promise.all(gates.flatMap((gate) => Array.from({ length: 20 }, () => gate.acquire())));
    const elapsed = Date.now() - started;
    // 60 requests, 5 at once, then 50 per second: at least 1.1 s for the three together.
    expect(elapsed).toBeGreaterThanOrEqual(((60 - 5) / 50) * 1000 - 50);
  });

  it('lets the tokens due close together go at once, and what it lets go keeps to the rate and burst', async () => {
    const gate = gatesOn(uniquePrefix('gate'), 1, 50, 12)[0];
    if (gate === undefined) throw new Error('no gate');
    const times: number[] = [];
    await Promise.all(
      Array.from({ length: 60 }, () => gate.acquire().then(() => times.push(performance.now()))),
    );
    times.sort((a, b) => a - b);
    // Callers let go in the same group go in the same turn of the event loop.
    const instants = times.filter(
      (time, index) => index === 0 || time - (times[index - 1] ?? 0) > 5,
    );
    // One by one: about 50 instants (a token every 20 ms after the first few); in groups of
    // 200 ms (10 tokens at 50/s), about 7.
    expect(instants.length).toBeLessThanOrEqual(25);
    // In any stretch: at most the burst (12) plus what the rate brings in its length, with a
    // little room for a late timer.
    for (let from = 0; from < times.length; from++) {
      for (let to = from; to < times.length; to++) {
        const stretchMs = (times[to] ?? 0) - (times[from] ?? 0);
        expect(to - from + 1).toBeLessThanOrEqual(12 + (50 * stretchMs) / 1000 + 2);
      }
    }
  });

  it('three gates on a saturated bucket ask Redis less than once per granted request (one call takes the tokens due soon)', async () => {
    // A Redis of its own: its command counts are the gates' alone (MONITOR on the shared test
    // Redis saw every other test's traffic, and ioredis's monitor mode broke under it).
    const server = await startPrivateRedisServer();
    try {
      const gates = gatesOn(uniquePrefix('gate'), 3, 50, 5, server.url);
      await Promise.all(gates.flatMap((gate) => Array.from({ length: 20 }, () => gate.acquire())));
      const stats = new Redis(server.url);
      const info = await stats.info('commandstats');
      await stats.quit();
      const calls = (command: string): number =>
        Number(new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(info)?.[1] ?? 0);
      const scriptCalls = calls('evalsha') + calls('eval');
      // 60 granted. Without reservations each of the three asks again every time it is told to
      // wait, and only one wins: about 3.7 calls per request; reserving one token per call, one
      // call per request. A call takes a token for each caller waiting, as long as it comes
      // within reserveMs (200 ms, 10 tokens at 50/s): never more, so after a 429 at most 200 ms
      // worth of requests still go, and 60 tokens at 50/s take at least 6 calls.
      expect(scriptCalls).toBeGreaterThanOrEqual(6);
      expect(scriptCalls).toBeLessThanOrEqual(40);
    } finally {
      for (const gate of gates.splice(0)) gate.close();
      await Promise.all(connections.splice(0).map((redis) => redis.quit()));
      await server.stop();
    }
  });

  it('a 429 seen by one gate pauses every other gate until the shared pause ends, then halves the rate', async () => {
    const prefix = uniquePrefix('gate');
    const [seer, other] = gatesOn(prefix, 2, 20);
    await other?.acquire();
    seer?.rateLimited();
    // A second 429 during the pause answers a request sent before it: the same wave.
    seer?.rateLimited();
    const key = `${prefix}:platform-gate`;
    const pausedUntil = await eventually(
      'the shared gate to pause',
      async () => Number((await probe.hget(key, 'pausedUntil')) ?? 0) || undefined,
      { timeoutMs: 1_000, intervalMs: 10, otherwise: () => 0 },
    );
    expect(pausedUntil).toBeGreaterThan(0);
    await other?.acquire();
    expect(await redisNow()).toBeGreaterThanOrEqual(pausedUntil);
    expect(await probe.hmget(key, 'epoch', 'reducedRate', 'consecutive')).toEqual(['1', '10', '1']);
  });

  it('rejects a caller whose signal aborts, and every waiter when closed', async () => {
    const prefix = uniquePrefix('gate');
    const [gate] = gatesOn(prefix, 1, 1, 1);
    await gate?.acquire(); // the only token for a second
    const controller = new AbortController();
    const aborted = gate?.acquire(controller.signal);
    controller.abort(new Error('stop waiting'));
    await expect(aborted).rejects.toThrow('stop waiting');
    const waiting = gate?.acquire();
    gate?.close();
    await expect(waiting).rejects.toThrow(/request gate closed/);
    await expect(gate?.acquire()).rejects.toThrow(/closed/);
  });
});
