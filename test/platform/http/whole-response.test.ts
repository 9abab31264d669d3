import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AnswerTooLargeError,
  sendForWholeResponse,
} from '../../../src/platform/http/whole-response.js';

/** A real HTTP server on 127.0.0.1: each path answers its own way. */
describe('sendForWholeResponse', () => {
  let server: Server;
  let base: string;
  const seen: string[] = [];
  const agent = new Agent({ maxResponseSize: 1024 });

  beforeAll(async () => {
    server = createServer((request: IncomingMessage, response: ServerResponse) => {
      seen.push(`${request.method ?? ''} ${request.url ?? ''}`);
      if (request.url === '/chunks') {
        response.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'r-1' });
        // A byte-order mark, then the body in three writes (chunked encoding).
        response.write('\uFEFF{"data":');
        setTimeout(() => response.write('{"id":"é"}'), 10);
        setTimeout(() => response.end(',"error":null}'), 20);
      } else if (request.url === '/large') {
        response.end('x'.repeat(4096));
      } else if (request.url === '/large-failure') {
        response.writeHead(503).end('y'.repeat(100 * 1024));
      } else if (request.url?.startsWith('/echo')) {
        let body = '';
        request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        request.on('end', () => response.end(`${request.url ?? ''} ${body}`));
      }
      // '/hang': never answers.
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await agent.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('gives the status, the headers and the whole body as text, without a byte-order mark', async () => {
    const response = await sendForWholeResponse(agent, {
      url: new URL(`${base}/chunks`),
      method: 'GET',
      headers: { accept: 'application/json' },
    });
    expect(response.status).toBe(201);
    expect(response.headers['x-request-id']).toBe('r-1');
    expect(response.body).toBe('{"data":{"id":"é"},"error":null}');
  });

  it('sends the body and the query string', async () => {
    const response = await sendForWholeResponse(agent, {
      url: new URL(`${base}/echo?first=2`),
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(response.body).toBe('/echo?first=2 {"a":1}');
  });

  it('rejects with the signal’s reason when it aborts while the answer is awaited', async () => {
    const controller = new AbortController();
    const reason = new Error('shutting down');
    const pending = sendForWholeResponse(agent, {
      url: new URL(`${base}/hang`),
      method: 'GET',
      headers: {},
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(reason), 50);
    await expect(pending).rejects.toBe(reason);
  });

  it('sends nothing when the signal has already aborted', async () => {
    const before = seen.length;
    const reason = new Error('already stopped');
    await expect(
      sendForWholeResponse(agent, {
        url: new URL(`${base}/echo/never`),
        method: 'GET',
        headers: {},
        signal: AbortSignal.abort(reason),
      }),
    ).rejects.toBe(reason);
    expect(seen.slice(before)).toEqual([]);
  });

  it('rejects a body larger than the dispatcher allows, with undici’s error', async () => {
    await expect(
      sendForWholeResponse(agent, { url: new URL(`${base}/large`), method: 'GET', headers: {} }),
    ).rejects.toMatchObject({ code: 'UND_ERR_RES_EXCEEDED_MAX_SIZE' });
  });

  it('aborts a successful answer past the request’s maxBodyBytes, and keeps only the start of a failure’s', async () => {
    const roomy = new Agent();
    try {
      const refused = await sendForWholeResponse(roomy, {
        url: new URL(`${base}/large`),
        method: 'GET',
        headers: {},
        maxBodyBytes: 1000,
      }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(AnswerTooLargeError);
      expect(refused).toMatchObject({ status: 200, maxBytes: 1000 });

      const failure = await sendForWholeResponse(roomy, {
        url: new URL(`${base}/large-failure`),
        method: 'GET',
        headers: {},
        maxBodyBytes: 1000,
      });
      expect(failure.status).toBe(503);
      expect(failure.body).toBe('y'.repeat(64 * 1024));
    } finally {
      await roomy.destroy();
    }
  });
});
