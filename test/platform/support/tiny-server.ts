import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface TinyRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** An answer: `body` sent as JSON, or `raw` sent as it is (a body JSON.stringify cannot make). */
export type TinyHandler = (
  request: TinyRequest,
) => { status: number; body?: unknown; raw?: string } | undefined;

/** A throwaway HTTP server on 127.0.0.1 for the few cases the simulator cannot produce. */
export interface TinyServer {
  readonly baseUrl: string;
  readonly requests: TinyRequest[];
  close(): Promise<void>;
}

export async function startTinyServer(handler: TinyHandler): Promise<TinyServer> {
  const requests: TinyRequest[] = [];
  const server = createServer((incoming: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const request: TinyRequest = {
        method: incoming.method ?? 'GET',
        url: new URL(incoming.url ?? '/', 'http://127.0.0.1'),
        headers: incoming.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(request);
      const answer = handler(request) ?? { status: 404, body: { error: 'not here' } };
      const text = answer.raw ?? (answer.body === undefined ? '' : JSON.stringify(answer.body));
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A token endpoint answer for `client_id`, as the platform gives it. */
export function tokenAnswer(clientId: string, extra: Record<string, unknown> = {}) {
  return {
    status: 200,
    body: { client_id: clientId, access_token: 'tiny-token', expires_in: 3600, ...extra },
  };
}

/** A REST envelope around `data`. */
export function envelope(data: unknown, metadata: unknown = null) {
  return { status: 200, body: { data, error: null, metadata } };
}
