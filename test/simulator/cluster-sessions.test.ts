// Conformance tests read JSON bodies of many shapes and assert each: `any` is the honest type.
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type HttpResult } from './http.js';
import { startTestSimulator, type TestSimulator } from './simulator-fixture.js';
import { eventually } from '../testkit/eventually.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('cluster sessions', () => {
  let t: TestSimulator;
  let modern: string;
  let old: { baseUrl: string; version: string };
  let sa: { clientId: string; clientSecret: string };
  let pat: { clientId: string; clientSecret: string };

  beforeAll(async () => {
    t = await startTestSimulator({ workloads: 10, clusterSessionCap: 4 });
    const byName = (name: string) => t.fixtures.clusters.find((cluster) => cluster.name === name);
    modern = byName('dc1-prod-cl01')?.baseUrl ?? '';
    old = { baseUrl: byName('aws-cloud-cl04')?.baseUrl ?? '', version: '9.5.1' };
    const admin = t.fixtures.serviceAccounts.admin;
    sa = { clientId: admin.client_id, clientSecret: admin.client_secret };
    pat = {
      clientId: t.fixtures.personalAccessToken.clientId,
      clientSecret: t.fixtures.personalAccessToken.clientSecret,
    };
  });
  afterAll(() => t.close());

  const saSession = (baseUrl: string, credentials: unknown = sa): Promise<HttpResult> =>
    call('POST', `${baseUrl}/api/v1/service_account/session`, { json: credentials });
  const patSession = (baseUrl: string, credentials: unknown = pat): Promise<HttpResult> =>
    call('POST', `${baseUrl}/api/v1/personal_access_token/session`, { json: credentials });
  const deleteSession = (baseUrl: string, id: string, token: string): Promise<HttpResult> =>
    call('DELETE', `${baseUrl}/api/v1/session/${id}`, { token });

  it('creates a service-account session with the spec fields; its token works on that cluster only', async () => {
    const before = Date.now();
    const response = await saSession(modern);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      sessionId: expect.stringMatching(UUID),
      serviceAccountId: sa.clientId,
      token: expect.any(String),
      expirationTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      organizationId: '',
    });
    const expires = Date.parse(response.body.expirationTime);
    expect(expires - before).toBeGreaterThan(86_000_000);
    expect(expires - before).toBeLessThan(86_500_000);
    const token = response.body.token as string;
    const me = await call('GET', `${modern}/api/v1/cluster/me`, { token });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      id: expect.stringMatching(UUID),
      name: 'dc1-prod-cl01',
      version: '9.6.1',
    });
    const elsewhere = await call('GET', `${old.baseUrl}/api/v1/cluster/me`, { token });
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.body).toEqual({
      errorType: 'user_error',
      message: expect.any(String),
      cause: null,
    });
    // A platform access token is no cluster session token.
    const platformToken = await t.token();
    expect(
      (await call('GET', `${modern}/api/v1/cluster/me`, { token: platformToken })).status,
    ).toBe(401);
    await deleteSession(modern, 'me', token);
  });

  it('answers the version without authentication', async () => {
    const response = await call('GET', `${old.baseUrl}/api/v1/cluster/me/version`);
    expect(response.body).toEqual({ version: old.version });
  });

  it('refuses bad credentials (401) and malformed bodies (400) in the cluster error format', async () => {
    const wrong = await saSession(modern, { clientId: sa.clientId, clientSecret: 'wrong' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({
      errorType: 'user_error',
      message: expect.any(String),
      cause: null,
    });
    expect((await saSession(modern, pat)).status).toBe(401);
    for (const body of [{ clientId: sa.clientId }, {}, 'not json']) {
      const response =
        typeof body === 'string'
          ? await call('POST', `${modern}/api/v1/service_account/session`, {
              headers: { 'content-type': 'application/json' },
              json: undefined,
            })
          : await saSession(modern, body);
      expect(response.status).toBe(400);
      expect(response.body.errorType).toBe('user_error');
    }
  });

  it('creates personal-access-token sessions on 9.6.0 and later', async () => {
    const response = await patSession(modern);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      clientId: pat.clientId,
      token: expect.any(String),
      expirationTime: expect.any(String),
      organizationId: '',
    });
    expect(
      (await call('GET', `${modern}/api/v1/cluster/me`, { token: response.body.token })).status,
    ).toBe(200);
    expect((await patSession(modern, { ...pat, clientSecret: 'wrong' })).status).toBe(401);
    expect((await patSession(modern, sa)).status).toBe(401);
    expect((await deleteSession(modern, 'me', response.body.token as string)).status).toBe(204);
  });

  it('refuses a personal access token on a cluster below 9.6.0 with a clear 404', async () => {
    const response = await patSession(old.baseUrl);
    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      errorType: 'user_error',
      message: `Personal access token sessions require cluster software 9.6.0 or later; this cluster runs ${old.version}`,
      cause: null,
    });
    // Service-account sessions work there.
    const session = await saSession(old.baseUrl);
    expect(session.status).toBe(200);
    await deleteSession(old.baseUrl, 'me', session.body.token as string);
  });

  it('caps live sessions per account per cluster; deleting one frees a place', async () => {
    const sessions: { sessionId: string; token: string }[] = [];
    for (let index = 0; index < 4; index++) {
      const response = await saSession(modern);
      expect(response.status).toBe(200);
      sessions.push(response.body);
    }
    const refused = await saSession(modern);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      errorType: 'permission_error',
      message: expect.stringMatching(/Maximum number of sessions \(4\)/),
      cause: null,
    });
    // The cap is per cluster: another cluster still accepts, and so does another account.
    const other = await saSession(old.baseUrl);
    expect(other.status).toBe(200);
    const pats = await patSession(modern);
    expect(pats.status).toBe(200);
    expect(t.sim.stats().liveSessions).toBe(6);

    const [first, second] = sessions;
    if (first === undefined || second === undefined) throw new Error('sessions missing');
    expect((await deleteSession(modern, first.sessionId, second.token)).status).toBe(204);
    expect((await call('GET', `${modern}/api/v1/cluster/me`, { token: first.token })).status).toBe(
      401,
    );
    expect((await deleteSession(modern, first.sessionId, second.token)).status).toBe(404);
    const again = await saSession(modern);
    expect(again.status).toBe(200);

    // Unknown ids and other accounts' sessions are not found; a missing token is 401.
    expect(
      (await deleteSession(modern, '00000000-0000-4000-8000-000000000000', second.token)).status,
    ).toBe(404);
    expect((await deleteSession(modern, second.sessionId, pats.body.token as string)).status).toBe(
      404,
    );
    expect((await call('DELETE', `${modern}/api/v1/session/${second.sessionId}`)).status).toBe(401);

    for (const session of [...sessions.slice(1), again.body]) {
      expect((await deleteSession(modern, 'me', session.token as string)).status).toBe(204);
    }
    await deleteSession(old.baseUrl, 'me', other.body.token as string);
    await deleteSession(modern, 'me', pats.body.token as string);
    expect(t.sim.stats().liveSessions).toBe(0);
  });

  it('answers an unknown cluster route with 404 in the cluster format', async () => {
    const response = await call('GET', `${modern}/api/v1/nothing`);
    expect(response.status).toBe(404);
    expect(response.body.errorType).toBe('user_error');
  });
});

describe('cluster session expiry under a time scale', () => {
  let t: TestSimulator;

  beforeAll(async () => {
    t = await startTestSimulator({
      workloads: 5,
      timeScale: 600,
      clusterSessionLifetimeSeconds: 600,
      clusterSessionCap: 1,
    });
  });
  afterAll(() => t.close());

  it('expires sessions in real time and stops counting them against the cap', async () => {
    const cluster = t.fixtures.clusters[0]?.baseUrl ?? '';
    const admin = t.fixtures.serviceAccounts.admin;
    const credentials = { clientId: admin.client_id, clientSecret: admin.client_secret };
    const first = await call('POST', `${cluster}/api/v1/service_account/session`, {
      json: credentials,
    });
    expect(first.status).toBe(200);
    expect(Date.parse(first.body.expirationTime) - Date.now()).toBeLessThanOrEqual(1000);
    expect(
      (await call('POST', `${cluster}/api/v1/service_account/session`, { json: credentials }))
        .status,
    ).toBe(403);
    const expired = await eventually('the session to expire', async () => {
      const response = await call('GET', `${cluster}/api/v1/cluster/me`, {
        token: first.body.token as string,
      });
      return response.status === 401 ? response : undefined;
    });
    expect(expired.body.message).toMatch(/expired/);
    expect(
      (await call('POST', `${cluster}/api/v1/service_account/session`, { json: credentials }))
        .status,
    ).toBe(200);
  });
});
