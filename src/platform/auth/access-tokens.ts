import type { Secret } from '../../config/secret.js';
import type { HttpCaller } from '../http/http-caller.js';
import { appendPath } from '../http/append-path.js';
import { TOKEN_ENDPOINT_PATH } from './credentials-file.js';
import { revokeSession } from './session-revocation.js';
import { requestAccessToken, type IssuedAccessToken } from './token-request.js';

/**
 * Access tokens outside the client's cache, for the few callers that must hold one of their own:
 * secret rotation keeps a recovery token that outlives the secret it was issued for, and proves
 * a new secret works by asking for a token with it. Tokens are only ever requested from, and
 * sent to, this client's platform (`{base_url}`).
 */
export class AccessTokens {
  constructor(
    private readonly options: {
      readonly http: HttpCaller;
      readonly baseUrl: URL;
      readonly defaultLifetimeSeconds: number;
      readonly now: () => number;
    },
  ) {}

  /**
   * Asks this platform's token endpoint for a new token with these credentials. A refused
   * secret is an AuthenticationError ("incorrect client secret").
   */
  async issue(
    credentials: { readonly clientId: string; readonly clientSecret: Secret },
    signal?: AbortSignal,
  ): Promise<IssuedAccessToken> {
    return requestAccessToken({
      http: this.options.http,
      credentials: {
        clientId: credentials.clientId,
        clientSecret: credentials.clientSecret,
        tokenUrl: appendPath(this.options.baseUrl, TOKEN_ENDPOINT_PATH),
      },
      allowedOrigin: this.options.baseUrl.origin,
      defaultLifetimeSeconds: this.options.defaultLifetimeSeconds,
      now: this.options.now,
      signal,
    });
  }

  /** Ends a token's session (`DELETE /api/session`); a 401 means it had already ended. */
  async revoke(token: Secret, signal?: AbortSignal): Promise<void> {
    await revokeSession({ http: this.options.http, baseUrl: this.options.baseUrl, token, signal });
  }
}
