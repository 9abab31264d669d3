import { createHash, timingSafeEqual } from 'node:crypto';
import type { NamedSecret } from './credential-lines.js';

/**
 * The entry whose secret is `given`, compared in constant time: both sides are hashed to one
 * length first, and every entry is compared, so the time taken says neither how long a secret
 * is nor which one came close.
 */
export function matchingSecret(
  given: string,
  entries: readonly NamedSecret[],
): NamedSecret | undefined {
  const wanted = digest(given);
  let found: NamedSecret | undefined;
  for (const entry of entries) {
    if (timingSafeEqual(wanted, digest(entry.secret))) found ??= entry;
  }
  return found;
}

/** SHA-256 of `text`: a fixed-length stand-in for a secret, to compare or to key a cache. */
export function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
