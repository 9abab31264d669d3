import { UsageError } from '../../shared/usage-error.js';
import { isLoopback } from '../../shared/loopback.js';
import { appendPath } from './append-path.js';
import { ForeignOriginError, ProtocolError } from './platform-errors.js';

/**
 * Refuses to send anything to an origin other than the one a token belongs to: a platform token
 * goes only to `{base_url}`'s origin, a cluster session token only to that cluster's. Called
 * before any request is sent, so a bad link costs nothing and leaks nothing.
 */
export function assertSameOrigin(url: URL, allowedOrigin: string, operation: string): void {
  if (url.origin !== allowedOrigin) {
    throw new ForeignOriginError({
      operation,
      code: 'FOREIGN_ORIGIN',
      message: `refused to send a request to ${url.origin}: only ${allowedOrigin} may receive this token`,
      mayHaveTakenEffect: false,
    });
  }
}

/** Whether a link the platform returned names its own scheme (or host): `https://…`, `//host/…`. */
export function isAbsoluteLink(link: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(link) || link.startsWith('//');
}

/** The URL `resolve` makes of a link the platform returned; one that is no URL is its fault. */
export function linkUrl(operation: string, resolve: () => URL): URL {
  try {
    return resolve();
  } catch {
    throw new ProtocolError({
      operation,
      code: 'INVALID_LINK',
      message: 'the platform returned a link that is not a valid URL',
      mayHaveTakenEffect: true,
    });
  }
}

/**
 * Resolves a link the platform returned (absolute, or relative to `{base_url}`). A relative link
 * is appended to `{base_url}`, path prefix included; a protocol-relative one (`//host/...`) is
 * resolved like a browser would, and so lands on its own origin for the guard to refuse.
 */
export function resolvePlatformLink(link: string, baseUrl: URL, operation: string): URL {
  return linkUrl(operation, () =>
    isAbsoluteLink(link) ? new URL(link, baseUrl) : appendPath(baseUrl, link),
  );
}

/**
 * TLS stays on: plain http:// is refused unless the address is this machine's loopback (the
 * simulator) or the user allowed it explicitly. Certificate verification is never turned off.
 */
export function assertTransportSecurity(
  url: URL,
  options: { allowInsecureHttp: boolean; setting: string },
): void {
  if (url.protocol === 'https:') return;
  if (url.protocol !== 'http:') {
    throw new UsageError(`${options.setting}: ${url.href} must be an https:// URL`);
  }
  if (isLoopback(url.hostname) || options.allowInsecureHttp) return;
  throw new UsageError(
    `${options.setting}: ${url.origin} uses plain http://; use https://, or set ` +
      'platform.allowInsecureHttp (PAW_PLATFORM_ALLOW_INSECURE_HTTP=true) if you really mean it',
  );
}
