import { z } from 'zod';
import { Secret } from '../../config/secret.js';
import { appendPath } from '../http/append-path.js';
import type { HttpCaller } from '../http/http-caller.js';
import { parseJsonBody } from '../http/parse-json-body.js';

const OAUTH_TOKEN_PATH = '/api/oauth/token';

const tokenResponseSchema = z.looseObject({
  access_token: z.string().min(1),
  token_type: z.string().nullish(),
  expires_in: z.number().positive().nullish(),
  scope: z.string().nullish(),
});

export interface OAuthToken {
  readonly accessToken: Secret;
  readonly tokenType: string;
  /** Seconds, when the platform said. */
  readonly expiresIn: number | undefined;
  readonly scope: string | undefined;
}

export interface CodeExchange {
  readonly baseUrl: URL;
  readonly clientId: string;
  readonly clientSecret: Secret;
  readonly code: Secret;
  readonly redirectUri: string;
  readonly codeVerifier: Secret;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Exchanges an authorization code for a token (spec 4.4): form-encoded, with the registered
 * client secret and the PKCE verifier. A code is good once, so the exchange is never repeated
 * after a failure that may have reached the platform.
 */
export async function exchangeAuthorizationCode(
  http: HttpCaller,
  exchange: CodeExchange,
): Promise<OAuthToken> {
  const response = await http.call({
    operation: 'oauthToken',
    method: 'POST',
    route: OAUTH_TOKEN_PATH,
    url: appendPath(exchange.baseUrl, OAUTH_TOKEN_PATH),
    allowedOrigin: exchange.baseUrl.origin,
    idempotent: false,
    gated: true,
    body: {
      form: {
        grant_type: 'authorization_code',
        client_id: exchange.clientId,
        client_secret: exchange.clientSecret.reveal(),
        code: exchange.code.reveal(),
        redirect_uri: exchange.redirectUri,
        code_verifier: exchange.codeVerifier.reveal(),
      },
    },
    signal: exchange.signal,
    parse: (raw) => parseJsonBody(raw, 'oauthToken', tokenResponseSchema),
  });
  return {
    accessToken: new Secret(response.access_token),
    tokenType: response.token_type ?? 'Bearer',
    expiresIn: response.expires_in ?? undefined,
    scope: response.scope ?? undefined,
  };
}
