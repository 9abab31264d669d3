import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpsServer } from '../../../src/ops/ops-server.js';
import { captureLogs } from '../../testkit/log-capture.js';
import { startTestOpsServer } from '../test-ops-server.js';

const TOKEN = 'ops-token-3e8a1c6f9d2b4075';
const METRICS_TOKEN = 'metrics-token-7b2d9f4a1c6e8053';
const PROXY_SECRET = 'proxy-secret-6c1f8a3e9d2b5047';

/**
 * Failed attempts are counted per surface, and a proxy's secret is counted like a token:
 * before, `/metrics` and the dashboard shared one count per address (a scraper with a stale
 * token behind the ingress's address locked everyone out of the dashboard), and wrong proxy
 * secrets were not counted at all. Each client is an address of its own on 127.0.0.0/8.
 */
describe('the ops server’s failed attempts, per surface', () => {
  const logs = captureLogs('info');
  const agents: Agent[] = [];
  let dir: string;
  let server: OpsServer;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paw-ops-surfaces-'));
    await writeFile(join(dir, 'tokens'), `${TOKEN}\n`, { mode: 0o600 });
    await writeFile(join(dir, 'metrics'), `${METRICS_TOKEN}\n`, { mode: 0o600 });
    await writeFile(join(dir, 'proxy'), `${PROXY_SECRET}\n`, { mode: 0o600 });
    server = await startTestOpsServer(
      'ops-surfaces',
      {
        PAW_OPS_TOKEN_FILE: join(dir, 'tokens'),
        PAW_METRICS_TOKEN_FILE: join(dir, 'metrics'),
        PAW_OPS_PROXY_USER_HEADER: 'X-Forwarded-User',
        PAW_OPS_TRUSTED_PROXIES: '127.0.0.0/8',
        PAW_OPS_PROXY_SECRET_FILE: join(dir, 'proxy'),
      },
      logs.logger,
    );
  });
  afterAll(async () => {
    await server?.close();
    await Promise.all(agents.map((agent) => agent.close()));
    await rm(dir, { recursive: true, force: true });
  });

  const client = (address: string) => {
    const agent = new Agent({ localAddress: address });
    agents.push(agent);
    return async (path: string, headers: Record<string, string>) => {
      const response = await request(`${server.url}${path}`, { dispatcher: agent, headers });
      await response.body.dump();
      return response.statusCode;
    };
  };
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  it('locks a guesser of /metrics out of /metrics only, and of the dashboard out of it only', async () => {
    const scraper = client('127.0.0.41');
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      expect(await scraper('/metrics', bearer(`stale-metrics-token-${attempt}`))).toBe(401);
    }
    expect(await scraper('/metrics', bearer(METRICS_TOKEN))).toBe(429);
    expect(await scraper('/api/runs', bearer(TOKEN))).toBe(200);

    const guesser = client('127.0.0.42');
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      expect(await guesser('/api/runs', bearer(`guessed-ops-token-${attempt}`))).toBe(401);
    }
    expect(await guesser('/api/runs', bearer(TOKEN))).toBe(429);
    expect(await guesser('/metrics', bearer(METRICS_TOKEN))).toBe(200);
  });

  it('counts wrong proxy secrets as failed attempts', async () => {
    const proxy = client('127.0.0.43');
    const proxied = (secret: string) => ({
      'x-forwarded-user': 'alice',
      'x-paw-proxy-secret': secret,
    });
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      expect(await proxy('/api/runs', proxied(`guessed-secret-${attempt}-0000`))).toBe(401);
    }
    expect(await proxy('/api/runs', proxied(PROXY_SECRET))).toBe(429);
    expect(await client('127.0.0.44')('/api/runs', proxied(PROXY_SECRET))).toBe(200);
    expect(logs.text()).not.toContain('guessed-secret');
  });
});
