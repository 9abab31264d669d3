import { z } from 'zod';
import { Secret } from '../../config/secret.js';
import type { HttpCaller } from '../http/http-caller.js';
import { parseJsonBody } from '../http/parse-json-body.js';
import { ProtocolError } from '../http/platform-errors.js';

/** The token endpoint's answer (spec 4.1); extra fields are ignored. */
const tokenResponseSchema = z.looseObject({
  client_id: z.string().min(1),
  access_token: z.string().min(1),
  expires_in: z.number().positive().optional(),
});

/** The client id, secret and token endpoint of one service account. */
export interface ClientCredentials {
  readonly clientId: string;
  readonly clientSecret: Secret;
  readonly tokenUrl: URL;
}

/** An access token the token endpoint issued. */
export interface IssuedAccessToken {
  readonly value: Secret;
  readonly clientId: string;
  /** Epoch ms when it expires (measured from when it was asked for). */
  readonly expiresAt: number;
  readonly lifetimeSeconds: number;
  /** True when the response had no `expires_in` and the default lifetime was assumed. */
  readonly defaulted: boolean;
}

/**
 * One request to the token endpoint with client credentials (spec 4.1). No cache and no
 * reload: the token provider builds on it, and secret rotation uses it directly (a recovery
 * token, the check that a new secret authenticates). A token issued for another client id is
 * refused. The secret goes only to the token endpoint's origin, `allowedOrigin`.
 */
export async function requestAccessToken(options: {
  readonly http: HttpCaller;
  readonly credentials: ClientCredentials;
  readonly allowedOrigin: string;
  readonly defaultLifetimeSeconds: number;
  readonly now: () => number;
  readonly signal?: AbortSignal | undefined;
}): Promise<IssuedAccessToken> {
  const { credentials } = options;
  const requestedAt = options.now();
  const tokenUrl = credentials.tokenUrl;
  const response = await options.http.call({
    operation: 'clientToken',
    method: 'POST',
    route: tokenUrl.pathname,
    url: tokenUrl,
    allowedOrigin: options.allowedOrigin,
    // Asking for a token twice only costs a second token (sessions are unlimited).
    idempotent: true,
    gated: true,
    signal: options.signal,
    body: {
      form: {
        client_id: credentials.clientId,
        client_secret: credentials.clientSecret.reveal(),
        grant_type: 'client_credentials',
      },
    },
    parse: (raw) => parseJsonBody(raw, 'clientToken', tokenResponseSchema),
  });
  if (response.client_id !== credentials.clientId) {
    throw new ProtocolError({
      operation: 'clientToken',
      status: 200,
      code: 'CLIENT_ID_MISMATCH',
      message: `refused a token issued for ${response.client_id}; paw asked for ${credentials.clientId}`,
      mayHaveTakenEffect: true,
    });
  }
  const lifetimeSeconds = response.expires_in ?? options.defaultLifetimeSeconds;
  return {
    value: new Secret(response.access_token),
    clientId: response.client_id,
    expiresAt: requestedAt + lifetimeSeconds * 1000,
    lifetimeSeconds,
    defaulted: response.expires_in === undefined,
  };
}
