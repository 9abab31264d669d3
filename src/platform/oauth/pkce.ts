import { createHash, randomBytes } from 'node:crypto';

/**
 * A PKCE code verifier (RFC 7636 section 4.1): 32 random bytes, base64url without padding, which
 * is 43 characters of the unreserved set. Kept by the client until the code exchange.
 */
export function createCodeVerifier(): string {
  return randomBytes(32).toString('base64url');
}

/** The S256 code challenge: SHA-256 of the verifier, base64url without padding (RFC 7636 4.2). */
export function codeChallengeS256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** An unguessable `state` for one authorization request (compared on return). */
export function createState(): string {
  return randomBytes(24).toString('base64url');
}
