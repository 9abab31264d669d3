// Conformance tests read JSON bodies of many shapes and assert each: `any` is the honest type.
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSimulator, type TestSimulator } from './simulator-fixture.js';
import { eventually } from '../testkit/eventually.js';

const INVALID = {
  code: 16,
  message: 'JWT validation failed: Missing or invalid credentials',
  details: [],
};
const EXPIRED = {
  code: 16,
  message: 'JWT validation failed: TIME_CONSTRAINT_FAILURE',
  details: [],
};

describe('the platform token endpoint and the gateway', () => {
  let t: TestSimulator;
  let admin: { client_id: string; client_secret: string };

  beforeAll(async () => {
    t = await startTestSimulator();
    admin = t.fixtures.serviceAccounts.admin;
  });
  afterAll(() => t.close());

  it('issues a token for a form body with grant_type, as the spec shows', async () => {
    const response = await t.api('POST', '/api/client_token', {
      form: { ...admin, grant_type: 'client_credentials' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      client_id: admin.client_id,
      access_token: expect.any(String) as string,
      expires_in: 43_200,
    });
    const workloads = await t.api('GET', '/api/rest/workloads', {
      token: response.body.access_token,
    });
    expect(workloads.status).toBe(200);
  });

  it('accepts JSON bodies, without grant_type and with an extra name, like official clients', async () => {
    for (const json of [
      { client_id: admin.client_id, client_secret: admin.client_secret },
      { ...admin, grant_type: 'client_credentials', name: 'older-client' },
    ]) {
      const response = await t.api('POST', '/api/client_token', { json });
      expect(response.status).toBe(200);
      expect(response.body.client_id).toBe(admin.client_id);
    }
  });

  it('answers a wrong secret with the platform 401 body', async () => {
    const response = await t.api('POST', '/api/client_token', {
      form: { client_id: admin.client_id, client_secret: 'not-the-secret' },
    });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({
      code: 401,
      uri: '/api/client_token',
      message: 'UNAUTHENTICATED: incorrect client secret',
    });
  });

  it('refuses an unknown client, a wrong grant_type and missing fields', async () => {
    const unknown = await t.api('POST', '/api/client_token', {
      json: { client_id: 'client|00000000-0000-4000-8000-000000000000', client_secret: 'x' },
    });
    expect(unknown.status).toBe(401);
    expect(unknown.body.message).toMatch(/^UNAUTHENTICATED/);

    const grant = await t.api('POST', '/api/client_token', {
      json: { ...admin, grant_type: 'password' },
    });
    expect(grant.status).toBe(400);
    expect(grant.body.message).toContain('grant_type');

    const missing = await t.api('POST', '/api/client_token', {
      json: { client_id: admin.client_id },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain('client_secret');

    const empty = await t.api('POST', '/api/client_token');
    expect(empty.status).toBe(400);
  });

  it('allows any number of live tokens per account', async () => {
    const tokens = await Promise.all(Array.from({ length: 25 }, () => t.token()));
    expect(new Set(tokens).size).toBe(25);
    for (const token of tokens) {
      expect((await t.api('GET', '/api/rest/clusters', { token })).status).toBe(200);
    }
  });

  it('answers missing, malformed and unknown bearer tokens with the gateway 401', async () => {
    for (const headers of [
      {},
      { authorization: 'Basic abc' },
      { authorization: 'Bearer not-a-token' },
    ]) {
      const response = await t.api('GET', '/api/rest/workloads', { headers });
      expect(response.status).toBe(401);
      expect(response.body).toEqual(INVALID);
    }
    const graphql = await t.api('POST', '/api/graphql', {
      json: { query: '{ serviceAccounts { count } }' },
    });
    expect(graphql.status).toBe(401);
    expect(graphql.body).toEqual(INVALID);
  });

  it('revokes a token with DELETE /api/session (204), after which it is refused', async () => {
    const token = await t.token();
    const revoked = await t.api('DELETE', '/api/session', { token });
    expect(revoked.status).toBe(204);
    expect(revoked.text).toBe('');
    const after = await t.api('GET', '/api/rest/workloads', { token });
    expect(after.status).toBe(401);
    expect(after.body).toEqual(INVALID);
    expect((await t.api('DELETE', '/api/session', { token })).status).toBe(401);
  });

  it('accepts the scheme in any case', async () => {
    const token = await t.token();
    const response = await t.api('GET', '/api/rest/clusters', {
      headers: { authorization: `bearer ${token}` },
    });
    expect(response.status).toBe(200);
  });
});

describe('token lifetime under a time scale', () => {
  let t: TestSimulator;

  beforeAll(async () => {
    // 3600 platform seconds at 3600x: a token lives one real second.
    t = await startTestSimulator({ timeScale: 3600, tokenLifetimeSeconds: 3600 });
  });
  afterAll(() => t.close());

  it('reports expires_in in real seconds and answers TIME_CONSTRAINT_FAILURE once expired', async () => {
    const admin = t.fixtures.serviceAccounts.admin;
    const response = await t.api('POST', '/api/client_token', { json: admin });
    expect(response.body.expires_in).toBe(1);
    const token = response.body.access_token as string;
    expect((await t.api('GET', '/api/rest/clusters', { token })).status).toBe(200);
    const expired = await eventually('the token to expire', async () => {
      const attempt = await t.api('GET', '/api/rest/clusters', { token });
      return attempt.status === 401 ? attempt : undefined;
    });
    expect(expired.body).toEqual(EXPIRED);
    // Revoking an expired token answers 401, not 204.
    const revoke = await t.api('DELETE', '/api/session', { token });
    expect(revoke.status).toBe(401);
    expect(revoke.body).toEqual(EXPIRED);
  });

  it('puts the real expiry into the JWT exp claim', async () => {
    const before = Math.floor(Date.now() / 1000);
    const token = await t.token();
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as {
      exp: number;
    };
    expect(payload.exp).toBeGreaterThanOrEqual(before);
    expect(payload.exp).toBeLessThanOrEqual(before + 3);
  });
});
