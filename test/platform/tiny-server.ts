import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadSettings } from '../../src/config/load-settings.js';
import type { Logger } from '../../src/shared/logger.js';
import { createPlatformClient, type PlatformClient } from '../../src/platform/platform-client.js';

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

/** The service account a tiny platform answers tokens for. */
export const TINY_CLIENT_ID = 'client|11111111-2222-4333-8444-555555555555';

/**
 * A tiny server playing the platform and paw's client for it: the token endpoint and session
 * revocation answer as the platform's do (unless `ownTokenEndpoint`: then `handler` answers
 * them too), everything else is `handler`'s.
 */
export async function startTinyPlatform(
  handler: TinyHandler,
  options: { readonly logger: Logger; readonly ownTokenEndpoint?: boolean },
): Promise<{ server: TinyServer; client: PlatformClient }> {
  const server = await startTinyServer((request) => {
    if (options.ownTokenEndpoint !== true) {
      if (request.url.pathname === '/api/client_token') return tokenAnswer(TINY_CLIENT_ID);
      if (request.url.pathname === '/api/session') return { status: 204 };
    }
    return handler(request);
  });
  const { settings } = await loadSettings({
    env: {
      PAW_PLATFORM_URL: server.baseUrl,
      PAW_CLIENT_ID: TINY_CLIENT_ID,
      PAW_CLIENT_SECRET: 'tiny-secret',
      PAW_PLATFORM_RETRY_BASE_DELAY_MS: '10',
    },
  });
  try {
    return { server, client: await createPlatformClient({ settings, logger: options.logger }) };
  } catch (error) {
    await server.close();
    throw error;
  }
}
