import { createHash } from 'node:crypto';

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** RFC 7636 §4.2 S256: BASE64URL(SHA256(ASCII(code_verifier))), no padding. */
export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export function isWellFormedVerifier(verifier: string): boolean {
  return VERIFIER.test(verifier);
}

/** A challenge is a base64url SHA-256 digest: 43 characters. */
export function isWellFormedChallenge(challenge: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(challenge);
}
