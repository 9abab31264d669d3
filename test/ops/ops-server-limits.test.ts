import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpsServer } from '../../src/ops/ops-server.js';
import { eventually } from '../testkit/eventually.js';
import { captureLogs } from '../testkit/log-capture.js';
import { open, slowClient } from './slow-client.js';
import { startTestOpsServer } from './test-ops-server.js';

const TOKEN = 'ops-token-2f6b9d1e4a8c7035';

/**
 * The client's side of each case lasts 20 s (80 bytes, one every 250 ms); the server is told to
 * give a request 1 s, so it must hang up long before the client is done.
 */
const SLOW = { intervalMs: 250 };
const EIGHTY_BYTES = 'x'.repeat(80);

/**
 * The ops server bounds what a client may hold: a request's headers and body must arrive within
 * `http.requestTimeoutMs`, a refused request's connection is closed with its answer, bodies are
 * small, and connections are capped.
 */
describe('the ops server’s limits', () => {
  const logs = captureLogs('info');
  let dir: string;
  let server: OpsServer;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paw-ops-limits-'));
    await writeFile(join(dir, 'tokens'), `${TOKEN}\n`, { mode: 0o600 });
    server = await startTestOpsServer(
      'ops-limits',
      {
        PAW_OPS_TOKEN_FILE: join(dir, 'tokens'),
        PAW_HTTP_REQUEST_TIMEOUT_MS: '1000',
        PAW_HTTP_QUEUES_READ_ONLY: 'false',
      },
      logs.logger,
    );
  });
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const postHead = (headers: string) =>
    `POST /api/runs/some-run/retry HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${EIGHTY_BYTES.length}\r\n${headers}\r\n`;

  it('closes the connection of a refused POST whose body trickles in, with its 401', async () => {
    const seen = await slowClient(server.url, postHead(''), EIGHTY_BYTES, SLOW);
    expect(seen.response).toMatch(/^HTTP\/1\.1 401 /);
    expect(seen.closedByServer, 'the server hung up before the client was done').toBe(true);
    expect(seen.bytesSent).toBeLessThan(postHead('').length + EIGHTY_BYTES.length);
  });

  it('cuts off an authenticated request whose body trickles in', async () => {
    const head = postHead(`Authorization: Bearer ${TOKEN}\r\n`);
    const seen = await slowClient(server.url, head, EIGHTY_BYTES, SLOW);
    expect(seen.closedByServer, 'the server hung up before the client was done').toBe(true);
    expect(seen.bytesSent, 'bytes sent before the hang-up').toBeLessThan(
      head.length + EIGHTY_BYTES.length,
    );
    expect(seen.response).not.toMatch(/^HTTP\/1\.1 2/);
  });

  it('cuts off a request whose headers trickle in, and a connection that says nothing', async () => {
    const headers = `GET /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${EIGHTY_BYTES}`;
    const slowHeaders = await slowClient(server.url, '', headers, SLOW);
    expect(slowHeaders.closedByServer, 'the server hung up on the slow headers').toBe(true);
    expect(slowHeaders.bytesSent).toBeLessThan(headers.length);
    const silent = await slowClient(server.url, '', '', { ...SLOW, silentMs: 20_000 });
    expect(silent.closedByServer, 'the server hung up on the silent connection').toBe(true);
  });

  it('answers a query parameter given twice with 400 naming it, after the access check', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    for (const [path, name] of [
      ['/api/runs?limit=1&limit=2', 'limit'],
      ['/api/coverage?stale=1h&stale=2h', 'stale'],
      ['/coverage?rows=5&sort=name&sort=state', 'sort'],
    ] as const) {
      const response = await request(`${server.url}${path}`, { headers: auth });
      expect(response.statusCode, path).toBe(400);
      expect(await response.body.json()).toEqual({
        error: `query parameter ${name} given more than once: give each parameter once`,
      });
    }
    const stranger = await request(`${server.url}/api/runs?limit=1&limit=2`);
    await stranger.body.dump();
    expect(stranger.statusCode).toBe(401);
  });

  it('refuses a body larger than anything the ops server takes', async () => {
    const response = await request(`${server.url}/api/runs/some-run/retry`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'x'.repeat(200_000) }),
    });
    await response.body.dump();
    expect(response.statusCode).toBe(413);
  });
});

describe('the ops server’s connection cap', () => {
  it('holds a connection beyond http.maxConnections for one prompt request only, and takes them again once others close', async () => {
    const logs = captureLogs();
    const server = await startTestOpsServer(
      'ops-connection-cap',
      { PAW_HTTP_MAX_CONNECTIONS: '2' },
      logs.logger,
    );
    const held: Socket[] = [];
    try {
      // Two connections the server has surely taken: each has had an answer.
      for (let index = 0; index < 2; index += 1) {
        const socket = await open(server.url);
        held.push(socket);
        const answered = new Promise((resolve) => socket.once('data', resolve));
        socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
        await answered;
      }
      // Beyond the cap, on probation: a silent connection is closed, a prompt request answered
      // and its connection closed with the answer.
      const silent = await slowClient(server.url, '', '', { intervalMs: 50, silentMs: 20_000 });
      expect(silent.closedByServer, 'the server closed the silent connection').toBe(true);
      expect(silent.response).toBe('');
      const prompt = await slowClient(
        server.url,
        'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
        '',
        { intervalMs: 50, silentMs: 20_000 },
      );
      expect(prompt.response).toMatch(/^HTTP\/1\.1 200 [^]*\r\nconnection: close\r\n/i);
      expect(prompt.closedByServer, 'the server closed it with the answer').toBe(true);
      expect(held.every((socket) => !socket.destroyed && socket.readyState === 'open')).toBe(true);
      held.splice(0).forEach((socket) => socket.destroy());
      const status = await eventually(
        'a connection to be taken once the others closed',
        async () => {
          const response = await request(`${server.url}/healthz`).catch(() => undefined);
          await response?.body.dump();
          return response?.statusCode;
        },
      );
      expect(status).toBe(200);
      expect(logs.text()).toMatch(
        /closed connections beyond its budget \(http\.maxConnections 2, http\.maxConnectionsPerAddress 2\)/,
      );
    } finally {
      held.forEach((socket) => socket.destroy());
      await server.close();
    }
  });
});
