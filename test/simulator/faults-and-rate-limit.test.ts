// Conformance tests read JSON bodies of many shapes and assert each: `any` is the honest type.
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-return */
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call } from './http.js';
import { startTestSimulator, type TestSimulator } from './simulator-fixture.js';
import { eventually } from '../testkit/eventually.js';

const UPSTREAM = { code: 14, message: 'upstream connect error or disconnect/reset before headers' };

describe('faults on demand', () => {
  let t: TestSimulator;
  let token: string;
  let workloadPath: string;

  beforeAll(async () => {
    t = await startTestSimulator({ workloads: 10 });
    token = await t.token();
    workloadPath = `/api/rest/workloads/${t.fixtures.workloads.samples.vsphereVm ?? ''}`;
  });
  afterEach(async () => {
    await t.api('PUT', '/_sim/faults', { json: {} });
  });
  afterAll(() => t.close());

  const setFaults = async (faults: unknown) => {
    const response = await t.api('PUT', '/_sim/faults', { json: faults });
    expect(response.status, response.text).toBe(200);
    return response.body;
  };

  it('answers injected 500 in the REST envelope and 502/503 as the gateway does', async () => {
    await setFaults({ operations: { getWorkload: { errorRate: 1, errorStatuses: [500] } } });
    const internal = await t.api('GET', workloadPath, { token });
    expect(internal.status).toBe(500);
    expect(internal.body).toEqual({
      data: null,
      error: { code: 'INTERNAL', message: expect.any(String) },
      metadata: null,
    });
    for (const status of [502, 503]) {
      await setFaults({ operations: { getWorkload: { errorRate: 1, errorStatuses: [status] } } });
      const response = await t.api('GET', workloadPath, { token });
      expect(response.status).toBe(status);
      expect(response.body).toEqual(UPSTREAM);
    }
    // Other operations are untouched.
    expect((await t.api('GET', '/api/rest/clusters', { token })).status).toBe(200);
  });

  it('injects errors in each operation’s own format', async () => {
    await setFaults({ default: { errorRate: 1, errorStatuses: [500] } });
    const admin = t.fixtures.serviceAccounts.admin;
    const tokenCall = await t.api('POST', '/api/client_token', { json: admin });
    expect(tokenCall.status).toBe(500);
    expect(tokenCall.body).toEqual({
      code: 500,
      uri: '/api/client_token',
      message: expect.stringMatching(/^INTERNAL/),
    });
    const graphql = await t.api('POST', '/api/graphql', {
      token,
      json: { query: '{ serviceAccounts { count } }' },
    });
    // GraphQL fails the GraphQL way: HTTP 200 with errors[] and extensions.code 500.
    expect(graphql.status).toBe(200);
    expect(graphql.body).toEqual({
      data: null,
      errors: [
        {
          message: 'Error checking account flags to determine access. Please try again.',
          extensions: { code: 500, trace: expect.any(Object) },
        },
      ],
    });
    const cluster = await call(
      'GET',
      `${t.fixtures.clusters[0]?.baseUrl ?? ''}/api/v1/cluster/me/version`,
    );
    expect(cluster.status).toBe(500);
    expect(cluster.body).toEqual({
      errorType: 'server_error',
      message: expect.any(String),
      cause: null,
    });
    const oauth = await t.api('POST', '/api/oauth/token', {
      form: { grant_type: 'authorization_code' },
    });
    expect(oauth.body.error).toBe('server_error');
    // /_sim is never faulted.
    expect((await t.api('GET', '/_sim/stats')).status).toBe(200);
  });

  it('resets connections', async () => {
    await setFaults({ operations: { getWorkload: { resetRate: 1 } } });
    const error = await call('GET', `${t.sim.baseUrl}${workloadPath}`, { token }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as { code?: string }).code).toMatch(/^UND_ERR_SOCKET|ECONNRESET$/);
    expect(t.sim.stats().faultsInjected['reset']).toBeGreaterThanOrEqual(1);
  });

  it('hangs without answering', async () => {
    await setFaults({ operations: { listClusters: { hangRate: 1 } } });
    const error = await request(`${t.sim.baseUrl}/api/rest/clusters`, {
      headers: { authorization: `Bearer ${token}` },
      headersTimeout: 300,
    }).catch((caught: unknown) => caught);
    expect((error as { code?: string }).code).toBe('UND_ERR_HEADERS_TIMEOUT');
  });

  it('mangles bodies so that they do not parse', async () => {
    await setFaults({ operations: { getWorkload: { malformedRate: 1 } } });
    const response = await t.api('GET', workloadPath, { token });
    expect(response.status).toBe(200);
    expect(response.text.length).toBeGreaterThan(0);
    expect(() => JSON.parse(response.text) as unknown).toThrow();
  });

  it('forces bursts of bare 429s with times, and reads the remaining count back', async () => {
    await setFaults({ operations: { getWorkload: { tooManyRequestsRate: 1, times: 3 } } });
    for (let index = 0; index < 3; index++) {
      const response = await t.api('GET', workloadPath, { token });
      expect(response.status).toBe(429);
      expect(response.text).toBe('');
      expect(response.headers['retry-after']).toBeUndefined();
      const faults = await t.api('GET', '/_sim/faults');
      expect(faults.body.operations.getWorkload.times).toBe(2 - index);
    }
    expect((await t.api('GET', workloadPath, { token })).status).toBe(200);
  });

  it('adds latency', async () => {
    await setFaults({ operations: { getWorkload: { latency: { fixedMs: 250 } } } });
    const started = performance.now();
    expect((await t.api('GET', workloadPath, { token })).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(240);
  });

  it('acts on a request it received whole even when its client gives up during the latency, as a platform does', async () => {
    await setFaults({ operations: { takeSnapshot: { latency: { fixedMs: 500 } } } });
    const vm = t.fixtures.workloads.samples.vsphereVm ?? '';
    const before = t.sim.stats().snapshotTriggers[vm] ?? 0;
    const caller = new AbortController();
    const sent = request(`${t.sim.baseUrl}/api/rest/workloads/${vm}/snapshots`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{}',
      signal: caller.signal,
    });
    setTimeout(() => caller.abort(), 100);
    await expect(sent).rejects.toThrow();
    // Before, the latency was spent before the body was read: a client gone by then left a
    // request the simulator dropped, where a platform that had it whole takes the snapshot.
    await eventually('the trigger to be acted on', () =>
      (t.sim.stats().snapshotTriggers[vm] ?? 0) === before + 1 ? true : undefined,
    );
  });

  it('lets an operation rule override the default and mixes faults at the configured rates', async () => {
    await setFaults({
      default: { errorRate: 1, errorStatuses: [503] },
      operations: { getWorkload: { errorRate: 0.5, errorStatuses: [502], malformedRate: 0.5 } },
    });
    expect((await t.api('GET', '/api/rest/clusters', { token })).status).toBe(503);
    const statuses = new Set<string>();
    for (let index = 0; index < 40; index++) {
      const response = await t.api('GET', workloadPath, { token });
      statuses.add(response.status === 200 ? 'malformed' : String(response.status));
    }
    expect(statuses).toEqual(new Set(['502', 'malformed']));
  });

  it('refuses invalid fault configurations with a message', async () => {
    for (const faults of [
      { operations: { noSuchOperation: { errorRate: 1 } } },
      { default: { errorRate: 0.8, resetRate: 0.8 } },
      { default: { errorStatuses: [404] } },
      { default: { latency: { minMs: 10, maxMs: 5 } } },
    ]) {
      const response = await t.api('PUT', '/_sim/faults', { json: faults });
      expect(response.status, JSON.stringify(faults)).toBe(400);
      expect(response.body.error).toEqual(expect.any(String));
    }
    // The previous configuration stays.
    expect((await t.api('GET', '/_sim/faults')).body).toEqual({ operations: {} });
  });

  it('applies faults given at start, and setFaults() on the handle', async () => {
    const other = await startTestSimulator({
      workloads: 5,
      faults: { operations: { listClusters: { errorRate: 1, errorStatuses: [503] } } },
    });
    try {
      const otherToken = await other.token();
      expect((await other.api('GET', '/api/rest/clusters', { token: otherToken })).status).toBe(
        503,
      );
      other.sim.setFaults({});
      expect((await other.api('GET', '/api/rest/clusters', { token: otherToken })).status).toBe(
        200,
      );
    } finally {
      await other.close();
    }
  });
});

describe('the rate limit', () => {
  let t: TestSimulator;

  beforeAll(async () => {
    t = await startTestSimulator({ workloads: 5, rateLimit: { requestsPerSecond: 5, burst: 5 } });
  });
  afterAll(() => t.close());

  it('answers a bare 429 without Retry-After once the bucket is empty, and refills', async () => {
    const admin = t.fixtures.serviceAccounts.admin;
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => t.api('POST', '/api/client_token', { json: admin })),
    );
    const limited = responses.filter((response) => response.status === 429);
    // Five fit the bucket; a slow machine may refill a few more while the burst arrives.
    expect(limited.length).toBeGreaterThanOrEqual(5);
    for (const response of limited) {
      expect(response.text).toBe('');
      expect(response.headers['retry-after']).toBeUndefined();
    }
    expect(t.sim.stats().rateLimited).toBe(limited.length);
    // /_sim and the clusters are never limited.
    for (let index = 0; index < 20; index++)
      expect((await t.api('GET', '/_sim/stats')).status).toBe(200);
    const cluster = t.fixtures.clusters[0]?.baseUrl ?? '';
    for (let index = 0; index < 20; index++) {
      expect((await call('GET', `${cluster}/api/v1/cluster/me/version`)).status).toBe(200);
    }
    await eventually('the bucket to refill', async () => {
      const response = await t.api('POST', '/api/client_token', { json: admin });
      return response.status === 200 ? true : undefined;
    });
  });

  it('can be changed and turned off at run time', async () => {
    const changed = await t.api('PUT', '/_sim/rate-limit', { json: { requestsPerSecond: 0 } });
    expect(changed.body).toEqual({ requestsPerSecond: 0, burst: 1 });
    const token = await t.token();
    const responses = await Promise.all(
      Array.from({ length: 30 }, () => t.api('GET', '/api/rest/clusters', { token })),
    );
    expect(responses.every((response) => response.status === 200)).toBe(true);
    await t.api('PUT', '/_sim/rate-limit', { json: { requestsPerSecond: 50 } });
    expect((await t.api('GET', '/_sim/rate-limit')).body).toEqual({
      requestsPerSecond: 50,
      burst: 50,
    });
  });
});
