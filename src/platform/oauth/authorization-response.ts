import { timingSafeEqual } from 'node:crypto';
import { Secret } from '../../config/secret.js';
import { AuthenticationError, PermissionError, ProtocolError } from '../http/platform-errors.js';

/**
 * Reads the redirect the browser brought back: checks `state` against the one sent (aborting on
 * a mismatch, spec 4.4 rule 3), turns an `error` redirect (RFC 6749 4.1.2.1) into a typed error,
 * and returns the authorization code as a Secret.
 */
export function readAuthorizationResponse(callback: URL, expectedState: string): Secret {
  const state = callback.searchParams.get('state');
  if (state === null || !sameText(state, expectedState)) {
    throw new ProtocolError({
      operation: 'oauthAuthorize',
      code: 'STATE_MISMATCH',
      message:
        'the authorization response carries a different state than the request; aborted (it may be forged or stale)',
      mayHaveTakenEffect: false,
    });
  }
  const error = callback.searchParams.get('error');
  if (error !== null) {
    const description = callback.searchParams.get('error_description');
    const details = {
      operation: 'oauthAuthorize',
      code: error,
      message:
        description === null
          ? `authorization failed: ${error}`
          : `authorization failed: ${description}`,
      mayHaveTakenEffect: false,
    };
    throw error === 'access_denied'
      ? new PermissionError(details)
      : new AuthenticationError(details);
  }
  const code = callback.searchParams.get('code');
  if (code === null || code === '') {
    throw new ProtocolError({
      operation: 'oauthAuthorize',
      code: 'CODE_MISSING',
      message: 'the authorization response has neither a code nor an error',
      mayHaveTakenEffect: false,
    });
  }
  return new Secret(code);
}

function sameText(left: string, right: string): boolean {
  const a = Buffer.from(left);
  const b = Buffer.from(right);
  return a.length === b.length && timingSafeEqual(a, b);
}
