import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../../src/ops/auth/password-hash.js';
import type { OpsServer } from '../../../src/ops/ops-server.js';
import { captureLogs } from '../../testkit/log-capture.js';
import { startTestOpsServer } from '../test-ops-server.js';

const PASSWORD = 'alice-password-5c1e7a9d';
const TOKEN = 'ops-token-8a4d2f6c1e9b3075';

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/**
 * Each wrong basic-auth password costs the server a 32 MiB scrypt: failed attempts are limited
 * per client, and the hashes running at once are bounded. Each client here is an address of its
 * own on 127.0.0.0/8 (all of it is loopback on Linux), as distinct machines would be.
 */
describe('the ops server’s password checks', () => {
  const logs = captureLogs('info');
  const agents: Agent[] = [];
  let dir: string;
  let server: OpsServer;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paw-ops-passwords-'));
    await writeFile(join(dir, 'users'), `alice:${await hashPassword(PASSWORD)}\n`, { mode: 0o600 });
    await writeFile(join(dir, 'tokens'), `${TOKEN}\n`, { mode: 0o600 });
    server = await startTestOpsServer(
      'ops-passwords',
      { PAW_OPS_USERS_FILE: join(dir, 'users'), PAW_OPS_TOKEN_FILE: join(dir, 'tokens') },
      logs.logger,
    );
  });
  afterAll(async () => {
    await server?.close();
    await Promise.all(agents.map((agent) => agent.close()));
    await rm(dir, { recursive: true, force: true });
  });

  /** A client on its own loopback address. */
  const client = (address: string) => {
    const agent = new Agent({ localAddress: address });
    agents.push(agent);
    return async (path: string, authorization?: string) => {
      const response = await request(`${server.url}${path}`, {
        dispatcher: agent,
        headers: authorization === undefined ? {} : { authorization },
      });
      await response.body.dump();
      return { status: response.statusCode, retryAfter: response.headers['retry-after'] };
    };
  };

  it('answers 429 to a client after 10 failed attempts, to it alone, and keeps the probes open', async () => {
    const guesser = client('127.0.0.2');
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      expect((await guesser('/api/runs', basic('alice', `guess-${attempt}`))).status).toBe(401);
    }
    const refused = await guesser('/api/runs', basic('alice', 'guess-11'));
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    // Locked out is locked out: the right password, or a wrong token, gets no check either.
    expect((await guesser('/api/runs', basic('alice', PASSWORD))).status).toBe(429);
    expect((await guesser('/api/runs', 'Bearer not-the-ops-token-0000')).status).toBe(429);
    // Probes answer whatever the client sent.
    expect((await guesser('/healthz', basic('alice', 'guess-12'))).status).toBe(200);
    expect((await guesser('/readyz', basic('alice', 'guess-13'))).status).toBe(200);
    // Another client is not held for the guesser's failures.
    expect((await client('127.0.0.3')('/api/runs', basic('alice', PASSWORD))).status).toBe(200);
    expect(logs.text()).toMatch(/too many failed attempts/);
    expect(logs.text()).not.toContain('guess-');
  });

  it('counts a client’s attempts as they begin, so concurrent guesses get no more checks', async () => {
    const guesser = client('127.0.0.4');
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        guesser('/api/runs', basic('alice', `concurrent-${index}`)),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(10);
  });

  it('bounds the password checks running at once, across clients: the rest are told to come back', async () => {
    const clients = Array.from({ length: 16 }, (_, index) => client(`127.0.0.${10 + index}`));
    const answers = await Promise.all(
      clients.flatMap((guesser, index) =>
        Array.from({ length: 8 }, (_, attempt) =>
          guesser('/api/runs', basic('alice', `many-${index}-${attempt}`)),
        ),
      ),
    );
    const busy = answers.filter((answer) => answer.status === 503);
    expect(busy.length).toBeGreaterThan(0);
    expect(busy.every((answer) => Number(answer.retryAfter) > 0)).toBe(true);
    expect(answers.every((answer) => answer.status === 401 || answer.status === 503)).toBe(true);
  });
});
