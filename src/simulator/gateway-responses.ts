import type { ErrorSurface } from './route-config.js';
import { errorEnvelope } from './rest-error.js';

/** The gateway's 401 body for a missing, unknown or revoked token. */
export const INVALID_CREDENTIALS_BODY = {
  code: 16,
  message: 'JWT validation failed: Missing or invalid credentials',
  details: [],
} as const;

/** The gateway's 401 body for an expired token. */
export const EXPIRED_TOKEN_BODY = {
  code: 16,
  message: 'JWT validation failed: TIME_CONSTRAINT_FAILURE',
  details: [],
} as const;

/** What an upstream failure looks like from behind the gateway (Envoy's wording). */
const UPSTREAM_FAILURE_BODY = {
  code: 14,
  message: 'upstream connect error or disconnect/reset before headers',
} as const;

/** What the platform's GraphQL service says when it fails transiently (platform-facts.md). */
const GRAPHQL_TRANSIENT_MESSAGE =
  'Error checking account flags to determine access. Please try again.';

/**
 * The answer to an injected 500/502/503, in the format of the operation that fails. GraphQL
 * reports its own internal errors the GraphQL way, HTTP 200 with `errors[]` and
 * `extensions.code` 500, which is what a client must learn to treat as a failure.
 */
export function injectedError(
  surface: ErrorSurface,
  status: 500 | 502 | 503,
  path: string,
): { status: number; body: unknown } {
  if (surface === 'cluster') {
    return {
      status,
      body: { errorType: 'server_error', message: `injected fault: HTTP ${status}`, cause: null },
    };
  }
  if (status !== 500) return { status, body: UPSTREAM_FAILURE_BODY };
  switch (surface) {
    case 'rest':
      return { status, body: errorEnvelope('INTERNAL', 'internal error (injected fault)') };
    case 'token':
      return {
        status,
        body: { code: 500, uri: path, message: 'INTERNAL: internal error (injected fault)' },
      };
    case 'oauth':
      return {
        status,
        body: { error: 'server_error', error_description: 'internal error (injected fault)' },
      };
    case 'graphql':
      return {
        status: 200,
        body: {
          data: null,
          errors: [
            {
              message: GRAPHQL_TRANSIENT_MESSAGE,
              extensions: { code: 500, trace: { injectedFault: true } },
            },
          ],
        },
      };
    case 'gateway':
      return { status, body: { code: 13, message: 'internal error (injected fault)' } };
  }
}
