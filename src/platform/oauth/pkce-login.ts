import { setTimeout as sleep } from 'node:timers/promises';
import { Secret } from '../../config/secret.js';
import type { HttpCaller } from '../http/http-caller.js';
import { PlatformTimeoutError } from '../http/platform-errors.js';
import { buildAuthorizeUrl } from './authorization-request.js';
import { readAuthorizationResponse } from './authorization-response.js';
import { exchangeAuthorizationCode, type OAuthToken } from './code-exchange.js';
import { listenOnLoopback } from './loopback-listener.js';
import { codeChallengeS256, createCodeVerifier, createState } from './pkce.js';

export interface OAuthApplication {
  readonly clientId: string;
  readonly clientSecret: Secret;
  /** The loopback redirect URI registered with the application. */
  readonly redirectUri: string;
  readonly scope: string;
}

export interface PkceLoginOptions {
  readonly http: HttpCaller;
  readonly baseUrl: URL;
  readonly application: OAuthApplication;
  /** Shown to the user: the URL to open in a browser. */
  readonly onAuthorizeUrl: (url: URL) => void;
  /** How long to wait for the browser; 5 minutes by default. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/**
 * The whole authorization-code-with-PKCE flow (spec 4.4) for a user at a terminal: a fresh
 * verifier and state, a loopback listener on the registered redirect URI, the authorize URL
 * handed to `onAuthorizeUrl`, the state checked on return, and the code exchanged once.
 */
export async function loginWithPkce(options: PkceLoginOptions): Promise<OAuthToken> {
  const verifier = new Secret(createCodeVerifier());
  const state = createState();
  const listener = await listenOnLoopback(options.application.redirectUri);
  let callback: URL;
  try {
    options.onAuthorizeUrl(
      buildAuthorizeUrl({
        baseUrl: options.baseUrl,
        clientId: options.application.clientId,
        redirectUri: listener.redirectUri,
        scope: options.application.scope,
        state,
        codeChallenge: codeChallengeS256(verifier.reveal()),
      }),
    );
    const timeoutMs = options.timeoutMs ?? 5 * 60_000;
    const giveUp = new AbortController();
    const onAbort = () => giveUp.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      callback = await Promise.race([
        listener.callback,
        sleep(timeoutMs, undefined, { signal: giveUp.signal }).then(() => {
          throw new PlatformTimeoutError({
            operation: 'oauthAuthorize',
            code: 'AUTHORIZATION_TIMEOUT',
            message: `no authorization response within ${Math.round(timeoutMs / 1000)} s; run paw login again`,
            mayHaveTakenEffect: false,
          });
        }),
      ]);
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      giveUp.abort();
    }
  } finally {
    await listener.close();
  }
  const code = readAuthorizationResponse(callback, state);
  return exchangeAuthorizationCode(options.http, {
    baseUrl: options.baseUrl,
    clientId: options.application.clientId,
    clientSecret: options.application.clientSecret,
    code,
    redirectUri: listener.redirectUri,
    codeVerifier: verifier,
    signal: options.signal,
  });
}
