import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/shared/logger.js';
import { SharedRequestGate } from '../../../src/platform/rate-limit/shared-request-gate.js';
import { TokenBucket } from '../../../src/simulator/rate-limiter.js';
import { startPrivateRedisServer } from '../../../src/redis/private-redis-server.js';
import { startSimulatorKit, type SimulatorKit } from '../../testkit/simulator-kit.js';

/**
 * The shared request gate against the simulator's token bucket at the headroom night's settings
 * (500 requests/s; the bench gives the platform a burst of a second's worth, paw's gate keeps a
 * quarter of a second's): what three processes' gates let through together must fit the
 * platform's bucket, request for request, whatever the gates' groups and reservations do.
 */
describe('SharedRequestGate against the simulator at 500 requests/s', () => {
  const RATE = 500;
  let kit: SimulatorKit;
  let redisServer: Awaited<ReturnType<typeof startPrivateRedisServer>>;
  const connections: Redis[] = [];
  const gates: SharedRequestGate[] = [];

  beforeAll(async () => {
    kit = await startSimulatorKit({ rateLimit: { requestsPerSecond: RATE, burst: RATE } });
    redisServer = await startPrivateRedisServer();
  });
  afterAll(async () => {
    for (const gate of gates) gate.close();
    await Promise.all(connections.map((redis) => redis.quit()));
    await redisServer.stop();
    await kit.close();
  });

  it('three gates sending 2,000 requests draw no 429', async () => {
    for (let index = 0; index < 3; index++) {
      const redis = new Redis(redisServer.url, { maxRetriesPerRequest: null });
      connections.push(redis);
      gates.push(
        new SharedRequestGate({
          redis,
          prefix: 'gate-sim',
          requestsPerSecond: RATE,
          logger: silentLogger(),
        }),
      );
    }
    const base = kit.sim.baseUrl;
    await kit.control('DELETE', '/_sim/stats');
    // A rate-limited operation without a token: the bucket answers 429 before authentication
    // answers 401, so every status says which of the two the request met.
    // A connection reset (seen on a loaded machine) is tried again through the gate, as paw's
    // HTTP caller does: every attempt takes a token.
    const released: number[] = [];
    const send = async (gate: SharedRequestGate | undefined, attempt = 1): Promise<number> => {
      await gate?.acquire();
      released.push(performance.now());
      try {
        const response = await fetch(`${base}/api/rest/clusters`);
        await response.arrayBuffer();
        return response.status;
      } catch (error) {
        if (attempt >= 3) throw error;
        return send(gate, attempt + 1);
      }
    };
    const statuses = await Promise.all(
      Array.from({ length: 2_000 }, (_, index) => send(gates[index % gates.length])),
    );
    const stats = (await kit.control('GET', '/_sim/stats')) as { rateLimited: number };
    // What the gates let go, replayed through the simulator's own bucket at the moments they let
    // it go: the gates' part, apart from what the sockets and the simulator's event loop add.
    let replayed = 0;
    const replay = new TokenBucket(RATE, RATE, () => replayed);
    const refusedAtRelease = released.filter((at) => {
      replayed = at;
      return !replay.tryTake();
    }).length;
    expect(refusedAtRelease).toBe(0);
    expect(
      statuses.filter((status) => status === 429),
      `429s from the simulator although the gates' releases fit its bucket; most released in ` +
        `any 100 ms: ${mostWithin(released, 100)}, in any second: ${mostWithin(released, 1_000)}`,
    ).toHaveLength(0);
    expect(stats.rateLimited).toBe(0);
    expect(statuses.filter((status) => status === 401)).toHaveLength(2_000);
  });
});

/** The most of `times` (ms, in any order) that fall within any window `windowMs` long. */
function mostWithin(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let first = 0;
  for (let last = 0; last < sorted.length; last++) {
    while ((sorted[last] ?? 0) - (sorted[first] ?? 0) > windowMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}
