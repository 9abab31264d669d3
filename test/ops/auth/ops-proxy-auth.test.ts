import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpsServer } from '../../../src/ops/ops-server.js';
import { captureLogs } from '../../testkit/log-capture.js';
import { startTestOpsServer } from '../test-ops-server.js';

const PROXY_SECRET = 'proxy-secret-4a7c1e9f2b6d8035';
const TOKEN = 'ops-token-9d3b7f1a5c2e8046';

/** The documented reverse-proxy setup: paw on loopback, the proxy on the same machine. */
const PROXY_SETUP = {
  PAW_OPS_PROXY_USER_HEADER: 'X-Forwarded-User',
  PAW_OPS_TRUSTED_PROXIES: '127.0.0.1',
};

/**
 * A trusted proxy's user header is believed only with the proxy's shared secret: any process
 * on the proxy's address can send a header, only the proxy knows the secret. The test's peer is
 * 127.0.0.1, the trusted address, as any local process's would be.
 */
describe('a trusted proxy proves itself with its secret', () => {
  const logs = captureLogs('info');
  let dir: string;
  let server: OpsServer;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paw-ops-proxy-'));
    await writeFile(join(dir, 'proxy-secret'), `${PROXY_SECRET}\n`, { mode: 0o600 });
    await writeFile(join(dir, 'tokens'), `${TOKEN}\n`, { mode: 0o600 });
    server = await startTestOpsServer(
      'ops-proxy',
      {
        ...PROXY_SETUP,
        PAW_OPS_PROXY_SECRET_FILE: join(dir, 'proxy-secret'),
        PAW_OPS_TOKEN_FILE: join(dir, 'tokens'),
        PAW_HTTP_QUEUES_READ_ONLY: 'false',
      },
      logs.logger,
    );
  });
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** `headers` as a flat list of names and values, so a header may be sent twice. */
  const call = async (path: string, headers: string[], method: 'GET' | 'PUT' = 'GET') => {
    const response = await request(`${server.url}${path}`, { method, headers });
    const text = await response.body.text();
    return { status: response.statusCode, text };
  };

  it('refuses a user header from the proxy’s address without the proxy’s secret', async () => {
    expect((await call('/api/runs', ['x-forwarded-user', 'anyone'])).status).toBe(401);
    const pause = await call(
      '/queues/api/queues/snapshot/pause',
      ['x-forwarded-user', 'anyone', 'origin', server.url],
      'PUT',
    );
    expect(pause.status).toBe(401);
    expect(
      (
        await call('/api/runs', [
          'x-forwarded-user',
          'anyone',
          'x-paw-proxy-secret',
          'not-the-proxy-secret-0000',
        ])
      ).status,
    ).toBe(401);
    expect(logs.text()).not.toContain('not-the-proxy-secret');
  });

  it('believes the user header with the secret, and records that user', async () => {
    const proof = ['x-paw-proxy-secret', PROXY_SECRET];
    expect((await call('/api/runs', ['x-forwarded-user', 'carol', ...proof])).status).toBe(200);
    const pause = await call(
      '/queues/api/queues/snapshot/pause',
      ['x-forwarded-user', 'carol', 'origin', server.url, ...proof],
      'PUT',
    );
    expect(pause.status).toBe(200);
    const actions = JSON.parse(
      (await call('/api/actions', ['authorization', `Bearer ${TOKEN}`])).text,
    ) as { user: string; via: string; target: string; outcome: string }[];
    expect(actions.find((entry) => entry.target.endsWith('/snapshot/pause'))).toMatchObject({
      user: 'carol',
      via: 'proxy',
      outcome: 'done',
    });
    expect(logs.text()).not.toContain(PROXY_SECRET);
  });

  it('refuses a request with two user headers or two secrets, even with the secret', async () => {
    const proof = ['x-paw-proxy-secret', PROXY_SECRET];
    const twoUsers = await call('/api/runs', [
      'x-forwarded-user',
      'carol',
      'x-forwarded-user',
      'admin',
      ...proof,
    ]);
    expect(twoUsers.status).toBe(401);
    const twoSecrets = await call('/api/runs', [
      'x-forwarded-user',
      'carol',
      ...proof,
      'x-paw-proxy-secret',
      'another-secret-0123456789',
    ]);
    expect(twoSecrets.status).toBe(401);
    expect(logs.text()).toMatch(/more than one X-Forwarded-User header/i);
  });
});

describe('the documented reverse-proxy setup', () => {
  it('refuses to start without the proxy’s secret file, naming the setting', async () => {
    const logs = captureLogs();
    const started = startTestOpsServer('ops-proxy-unsafe', PROXY_SETUP, logs.logger);
    await expect(started).rejects.toThrow(/PAW_OPS_PROXY_SECRET_FILE/);
  });
});
