import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../../shared/usage-error.js';
import { isLoopback } from '../../shared/loopback.js';

/** What the browser shows after the redirect; it never echoes the code or the state. */
const DONE_PAGE =
  '<!doctype html><meta charset="utf-8"><title>paw</title>' +
  '<p>paw received the authorization response. You can close this window and return to the terminal.</p>';

export interface LoopbackListener {
  /** The redirect URI actually listened on (the given one, with the port filled in if it was 0). */
  readonly redirectUri: string;
  /** Resolves with the first request to the redirect path that carries an OAuth response. */
  readonly callback: Promise<URL>;
  close(): Promise<void>;
}

/**
 * Listens on a loopback redirect URI (RFC 8252 section 7.3) for the one redirect that ends an
 * authorization request. Only loopback addresses over http are accepted: the code must never
 * travel off this machine.
 */
export async function listenOnLoopback(redirectUri: string): Promise<LoopbackListener> {
  let url: URL;
  try {
    url = new URL(redirectUri);
  } catch {
    throw new UsageError(`redirect URI "${redirectUri}" is not a URL`);
  }
  if (url.protocol !== 'http:' || !isLoopback(url.hostname)) {
    throw new UsageError(
      `redirect URI ${redirectUri} must be a loopback http:// address (127.0.0.1, [::1] or localhost) for paw login to receive it`,
    );
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let resolveCallback!: (url: URL) => void;
  const callback = new Promise<URL>((resolve) => {
    resolveCallback = resolve;
  });
  const server: Server = createServer((request, response) => {
    const received = new URL(request.url ?? '/', url);
    const isResponse =
      received.searchParams.has('code') ||
      received.searchParams.has('error') ||
      received.searchParams.has('state');
    if (request.method !== 'GET' || received.pathname !== url.pathname || !isResponse) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    response
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8', connection: 'close' })
      .end(DONE_PAGE);
    resolveCallback(received);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new UsageError(
          `cannot listen on ${url.host} for the OAuth redirect (${error.code ?? error.message}); ` +
            'free that port or register another loopback redirect URI',
          { cause: error },
        ),
      ),
    );
    server.listen(Number(url.port || 80), host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const actual = new URL(url.href);
  actual.port = String(port);
  return {
    redirectUri: url.port === '0' ? actual.href : redirectUri,
    callback,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
