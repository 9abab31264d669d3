import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FaultRuleInput, FaultsInput } from '../../src/simulator/fault-rules.js';
import {
  PlatformConnectionError,
  PlatformTimeoutError,
  ProtocolError,
  UnavailableError,
} from '../../src/platform/http/platform-errors.js';
import { TokenBucketGate } from '../../src/platform/rate-limit/token-bucket-gate.js';
import type { PlatformClient } from '../../src/platform/platform-client.js';
import { startPlatformTestKit, type PlatformTestKit } from './platform-test-kit.js';

interface Stats {
  byOperation: Record<string, number>;
  rateLimited: number;
}

/** Fast retries and a short headers timeout, so that faults play out in a test's time. */
const quick = {
  PAW_PLATFORM_RETRY_BASE_DELAY_MS: '20',
  PAW_PLATFORM_RETRY_MAX_DELAY_MS: '100',
  PAW_PLATFORM_HEADERS_TIMEOUT_MS: '400',
};

describe('the client under injected faults', () => {
  let kit: PlatformTestKit;
  let client: PlatformClient;
  let vm: string;

  beforeAll(async () => {
    kit = await startPlatformTestKit({ workloads: 60, seed: 9, timeScale: 1000 });
    client = await kit.client({ env: quick });
    const id = kit.sim.fixtures().workloads.samples.vsphereVm;
    if (id === undefined) throw new Error('no VM in the inventory');
    vm = id;
    await client.rest.workloads.get(vm); // a token, so that token requests do not meet the faults
  });
  afterEach(() => kit.control('PUT', '/_sim/faults', { operations: {} }));
  afterAll(() => kit.close());

  const faults = (input: FaultsInput) => kit.control('PUT', '/_sim/faults', input);
  const count = async (operation: string): Promise<number> =>
    ((await kit.control('GET', '/_sim/stats')) as Stats).byOperation[operation] ?? 0;

  it('retries a read through 5xx answers and gives up with UnavailableError after its attempts', async () => {
    await faults({ operations: { getWorkload: { errorRate: 1, errorStatuses: [503], times: 2 } } });
    const before = await count('getWorkload');
    expect((await client.rest.workloads.get(vm)).id).toBe(vm);
    expect((await count('getWorkload')) - before).toBe(3);

    await faults({ operations: { getWorkload: { errorRate: 1, errorStatuses: [500, 502] } } });
    const error = await client.rest.workloads.get(vm).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error).toMatchObject({ operation: 'getWorkload' });
  });

  it('never repeats a snapshot trigger that may have happened (500, reset, hang)', async () => {
    const workload = await client.rest.workloads.get(vm);
    const cases: [FaultRuleInput, new (...args: never[]) => Error][] = [
      [{ errorRate: 1, errorStatuses: [500] }, UnavailableError],
      [{ resetRate: 1 }, PlatformConnectionError],
      [{ hangRate: 1 }, PlatformTimeoutError],
    ];
    for (const [rule, type] of cases) {
      await faults({ operations: { takeSnapshot: { ...rule, times: 1 } } });
      const before = await count('takeSnapshot');
      const error = await client.rest.workloads.takeSnapshot(workload).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(type);
      expect(error).toMatchObject({ mayHaveTakenEffect: true, operation: 'takeSnapshot' });
      expect((await count('takeSnapshot')) - before).toBe(1);
    }
  });

  it('repeats a snapshot trigger refused by the gateway (502, 429): it provably did nothing', async () => {
    const workload = await client.rest.workloads.get(vm);
    await faults({
      operations: { takeSnapshot: { errorRate: 1, errorStatuses: [502], times: 1 } },
    });
    const before = await count('takeSnapshot');
    const trigger = await client.rest.workloads.takeSnapshot(workload);
    expect(trigger.job.id).toMatch(/^CREATE_VSPHERE_SNAPSHOT_/);
    expect((await count('takeSnapshot')) - before).toBe(2);
  });

  it('retries a read after a connection reset', async () => {
    await faults({ operations: { getWorkload: { resetRate: 1, times: 1 } } });
    expect((await client.rest.workloads.get(vm)).id).toBe(vm);
  });

  it('times out a hanging read and retries it; gives up with PlatformTimeoutError', async () => {
    await faults({ operations: { getWorkload: { hangRate: 1, times: 1 } } });
    expect((await client.rest.workloads.get(vm)).id).toBe(vm);
    await faults({ operations: { getWorkload: { hangRate: 1 } } });
    const error = await client.rest.workloads.get(vm).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformTimeoutError);
    expect(error).toMatchObject({ code: 'TIMEOUT_HEADERS' });
  });

  it('retries a read whose body came back malformed; reports a persistent one as ProtocolError', async () => {
    await faults({ operations: { listWorkloads: { malformedRate: 1, times: 1 } } });
    expect(await client.rest.workloads.list().toArray(3)).toHaveLength(3);
    await faults({ operations: { listWorkloads: { malformedRate: 1 } } });
    const error = await client.rest.workloads
      .list()
      .toArray(3)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({ code: 'MALFORMED_RESPONSE', status: 200 });
  });

  it('slows every caller after a 429, not only the one that got it', async () => {
    const gate = new TokenBucketGate({ requestsPerSecond: 40 });
    const gated = await kit.client({ env: quick, requestGate: gate });
    await gated.rest.workloads.get(vm);
    await faults({ operations: { getWorkload: { tooManyRequestsRate: 1, times: 1 } } });
    const started = Date.now();
    const first = gated.rest.workloads.get(vm);
    // A second caller of the same client, on an operation without faults, started after the 429.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = gated.rest.workloads.list().toArray(1);
    await Promise.all([first, second]);
    expect(gate.currentRate()).toBeLessThan(40);
    // Both waited out the gate's pause after the 429 (500 ms): a lower bound, so no flake on a slow machine.
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
  });

  it('rides out a 429 storm from the platform rate limit without failing a call', async () => {
    await kit.control('PUT', '/_sim/rate-limit', { requestsPerSecond: 20, burst: 5 });
    try {
      const stormy = await kit.client({
        env: { ...quick, PAW_PLATFORM_RETRY_ATTEMPTS: '5', PAW_PLATFORM_RPS: '100' },
      });
      const before = ((await kit.control('GET', '/_sim/stats')) as Stats).rateLimited;
      const results = await Promise.all(
        Array.from({ length: 40 }, () => stormy.rest.workloads.get(vm)),
      );
      expect(results.every((workload) => workload.id === vm)).toBe(true);
      const after = ((await kit.control('GET', '/_sim/stats')) as Stats).rateLimited;
      expect(after - before).toBeGreaterThan(0);
    } finally {
      await kit.control('PUT', '/_sim/rate-limit', { requestsPerSecond: 0 });
    }
  });
});
