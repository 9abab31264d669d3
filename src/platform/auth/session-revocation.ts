import type { Secret } from '../../config/secret.js';
import { appendPath } from '../http/append-path.js';
import type { HttpCaller } from '../http/http-caller.js';

/**
 * Revokes the platform session of `token` (spec 4.2, `DELETE /api/session`). A token that
 * already expired answers 401 (an AuthenticationError), which callers usually ignore: there is
 * nothing left to revoke.
 */
export async function revokeSession(options: {
  readonly http: HttpCaller;
  readonly baseUrl: URL;
  readonly token: Secret;
  readonly signal?: AbortSignal | undefined;
}): Promise<void> {
  const { baseUrl, token } = options;
  await options.http.call({
    operation: 'revokeSession',
    method: 'DELETE',
    route: '/api/session',
    url: appendPath(baseUrl, '/api/session'),
    allowedOrigin: baseUrl.origin,
    idempotent: true,
    gated: true,
    signal: options.signal,
    // This exact token, and no replay with another one after a 401.
    authorization: { token: async () => token, rejected: () => undefined },
    parse: () => undefined,
  });
}
