const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Whether a redirect URI matches a registered one: the same string, or (RFC 8252 §7.3) a
 * loopback `http` URI that differs only in its port, as a native client listens on any free port.
 */
export function redirectUriMatches(registered: string, given: string): boolean {
  if (registered === given) return true;
  let a: URL;
  let b: URL;
  try {
    a = new URL(registered);
    b = new URL(given);
  } catch {
    return false;
  }
  return (
    a.protocol === 'http:' &&
    b.protocol === 'http:' &&
    LOOPBACK_HOSTS.has(a.hostname) &&
    a.hostname === b.hostname &&
    a.pathname === b.pathname &&
    a.search === b.search &&
    b.hash === ''
  );
}
