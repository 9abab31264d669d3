import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../src/shared/free-port.js';
import { PawMetrics } from '../../src/ops/metrics/paw-metrics.js';
import { hashPassword } from '../../src/ops/auth/password-hash.js';
import { startOpsServer, type OpsServer } from '../../src/ops/ops-server.js';
import { captureLogs } from '../testkit/log-capture.js';
import { runPaw } from '../testkit/paw-process.js';
import { testRedisUrl } from '../testkit/redis-connection.js';
import { opsSettings } from './ops-settings.js';

const TOKEN = 'ops-token-6f3a91c2d8e4b7a0';
const METRICS_TOKEN = 'metrics-token-1b2c3d4e5f60';
const PASSWORD = 'alice-password-3e9d1a7c';
const PROXY_SECRET = 'proxy-secret-7b3e9a1c5d2f8064';

/** The ops server asks who you are: tokens, users, a proxy's header, Host, CSRF, bull-board. */
describe('the ops server asks who you are', () => {
  const logs = captureLogs('debug');
  let dir: string;
  let server: OpsServer;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paw-ops-security-'));
    await writeFile(join(dir, 'tokens'), `# ops tokens\n${TOKEN}\n`, { mode: 0o600 });
    await writeFile(join(dir, 'metrics-token'), `${METRICS_TOKEN}\n`, { mode: 0o600 });
    await writeFile(join(dir, 'proxy-secret'), `nginx:${PROXY_SECRET}\n`, { mode: 0o600 });
    await writeFile(join(dir, 'users'), `alice:${await hashPassword(PASSWORD)}\n`, { mode: 0o600 });
    const settings = await opsSettings('ops-security', {
      PAW_OPS_TOKEN_FILE: join(dir, 'tokens'),
      PAW_OPS_USERS_FILE: join(dir, 'users'),
      PAW_OPS_PROXY_USER_HEADER: 'X-Forwarded-User',
      PAW_OPS_TRUSTED_PROXIES: '127.0.0.1',
      PAW_OPS_PROXY_SECRET_FILE: join(dir, 'proxy-secret'),
      PAW_METRICS_TOKEN_FILE: join(dir, 'metrics-token'),
      PAW_HTTP_ALLOWED_HOSTS: 'paw.example.com',
      PAW_HTTP_QUEUES_READ_ONLY: 'false',
    });
    const started = await startOpsServer({
      settings,
      logger: logs.logger,
      role: 'scheduler',
      version: '9.9.9',
      metrics: new PawMetrics({ processMetrics: false }),
      port: 0,
    });
    if (started === undefined) throw new Error('no ops server');
    server = started;
  });
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const call = async (
    path: string,
    options: { method?: 'GET' | 'PUT' | 'POST'; headers?: Record<string, string> } = {},
  ) => {
    const response = await request(`${server.url}${path}`, {
      method: options.method ?? 'GET',
      headers: options.headers ?? {},
    });
    const text = await response.body.text();
    return { status: response.statusCode, headers: response.headers, text };
  };
  const basic = (user: string, password: string) =>
    `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

  it('keeps /healthz and /readyz open, /readyz without detail, and /metrics behind its own token', async () => {
    expect((await call('/healthz')).status).toBe(200);
    const ready = await call('/readyz');
    expect(JSON.parse(ready.text)).toEqual({ status: 'ready' });
    const detailed = await call('/readyz', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(JSON.parse(detailed.text)).toMatchObject({ checks: { redis: { status: 'ok' } } });
    expect((await call('/metrics')).status).toBe(401);
    expect((await call('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(
      401,
    );
    const metrics = await call('/metrics', {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/paw_build_info/);
  });

  it('asks the dashboard, /api and /queues for a credential: a token, a user, or a trusted proxy’s header', async () => {
    for (const path of ['/', '/api/runs', '/queues', '/api/actions']) {
      const refused = await call(path);
      expect(refused.status, path).toBe(401);
      expect(refused.headers['www-authenticate']).toMatch(/Bearer realm="paw", Basic realm="paw"/);
    }
    expect(
      (await call('/api/runs', { headers: { authorization: `Bearer ${TOKEN}` } })).status,
    ).toBe(200);
    expect((await call('/api/runs', { headers: { authorization: 'Bearer wrong' } })).status).toBe(
      401,
    );
    expect(
      (await call('/api/runs', { headers: { authorization: basic('alice', PASSWORD) } })).status,
    ).toBe(200);
    expect(
      (await call('/api/runs', { headers: { authorization: basic('alice', 'nope') } })).status,
    ).toBe(401);
    expect(
      (await call('/api/runs', { headers: { authorization: basic('bob', PASSWORD) } })).status,
    ).toBe(401);
    // The test's peer is 127.0.0.1, a trusted proxy, which proves itself with its secret.
    expect(
      (
        await call('/api/runs', {
          headers: { 'x-forwarded-user': 'carol', 'x-paw-proxy-secret': PROXY_SECRET },
        })
      ).status,
    ).toBe(200);
    expect((await call('/api/runs', { headers: { 'x-forwarded-user': 'carol' } })).status).toBe(
      401,
    );
    // Refusals are logged, never with the credential.
    expect(logs.text()).toMatch(/ops request refused/);
    expect(logs.text()).not.toContain('wrong');
    expect(logs.text()).not.toContain(PASSWORD);
  });

  it('answers only to allowed Host names (DNS rebinding), and refuses cross-origin state changes (CSRF)', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect((await call('/api/runs', { headers: { ...auth, host: 'evil.example' } })).status).toBe(
      421,
    );
    expect(
      (await call('/api/runs', { headers: { ...auth, host: 'paw.example.com:8090' } })).status,
    ).toBe(200);
    const host = new URL(server.url).host;
    const pause = '/queues/api/queues/snapshot/pause';
    const crossSite = await call(pause, {
      method: 'PUT',
      headers: { authorization: basic('alice', PASSWORD), origin: 'https://evil.example' },
    });
    expect(crossSite.status).toBe(403);
    // A browser's same-origin request with basic auth, and a script's bearer request, pass.
    const sameSite = await call(pause, {
      method: 'PUT',
      headers: { authorization: basic('alice', PASSWORD), origin: `http://${host}` },
    });
    expect(sameSite.status).toBe(200);
    const noOrigin = await call(pause, {
      method: 'PUT',
      headers: { authorization: basic('alice', PASSWORD) },
    });
    expect(noOrigin.status).toBe(403);
    expect(
      (await call('/queues/api/queues/snapshot/resume', { method: 'PUT', headers: auth })).status,
    ).toBe(200);
  });

  it('lets bull-board pause and retry, refuses removing or cleaning paw jobs, and records who did what', async () => {
    const auth = { authorization: basic('alice', PASSWORD), origin: server.url };
    const clean = await call('/queues/api/queues/sla-window/clean/delayed', {
      method: 'PUT',
      headers: auth,
    });
    expect(clean.status).toBe(403);
    expect(clean.text).toMatch(/would break its records/);
    const remove = await call('/queues/api/queues/sla-window/some-job/clean', {
      method: 'PUT',
      headers: auth,
    });
    expect(remove.status).toBe(403);
    const stats = await call('/queues/api/redis/stats', { headers: auth });
    expect(stats.status).toBe(200);
    expect((JSON.parse(stats.text) as { version: string }).version).toMatch(/^\d+\./);
    const actions = JSON.parse(
      (await call('/api/actions', { headers: { authorization: `Bearer ${TOKEN}` } })).text,
    ) as { user: string; action: string; outcome: string; target: string }[];
    expect(actions.find((entry) => entry.target.endsWith('/clean/delayed'))).toMatchObject({
      user: 'alice',
      outcome: 'refused',
    });
    expect(actions.find((entry) => entry.target.endsWith('/snapshot/pause'))).toMatchObject({
      user: 'alice',
      outcome: 'done',
    });
  });
});

describe('the ops server on a network address', () => {
  it('refuses to start without authentication, naming the setting, unless told it may', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'paw-ops-bind-'));
    try {
      const env = {
        PAW_REDIS_URL: testRedisUrl(),
        PAW_HTTP_HOST: '0.0.0.0',
        PAW_JOBS_DIR: dir,
      };
      const port = String(await findFreePort());
      const refused = await runPaw(['scheduler'], {
        cwd: dir,
        env: { ...env, PAW_HTTP_PORT: port },
      });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(
        /listen on 0\.0\.0\.0 with no authentication.*PAW_OPS_TOKEN_FILE.*PAW_HTTP_ALLOW_UNAUTHENTICATED/s,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('in read-only mode refuses every change instead of answering 200 to a pause that pauses nothing', async () => {
    const settings = await opsSettings('ops-readonly');
    const logs = captureLogs();
    const server = await startOpsServer({
      settings,
      logger: logs.logger,
      role: 'scheduler',
      version: '9.9.9',
      metrics: new PawMetrics({ processMetrics: false }),
      port: 0,
    });
    try {
      const response = await request(`${server?.url ?? ''}/queues/api/queues/pause`, {
        method: 'PUT',
      });
      expect(response.statusCode).toBe(403);
      expect(await response.body.text()).toMatch(/read-only/);
    } finally {
      await server?.close();
    }
  });
});
