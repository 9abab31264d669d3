import type { FastifyRequest } from 'fastify';
import { addressMatcher } from './address-match.js';
import type { CredentialFile } from './credential-file.js';
import { matchingSecret } from './secret-match.js';

/** The header a trusted proxy proves itself with: a secret of `http.auth.proxySecretFile`. */
export const PROXY_SECRET_HEADER = 'X-Paw-Proxy-Secret';

/** What a request's proxy headers say: the user vouched for, or why they were not believed. */
export type ProxyVerdict = { readonly user: string } | { readonly refused: string };

/**
 * A reverse proxy that logs users in and names them in a header. Its address alone proves
 * nothing (any process on the proxy's machine has it), so the header is believed only from a
 * listed address that also sends one of the proxy's secrets, each header exactly once: a header
 * sent twice is joined by Node (`alice, admin`) and would name someone nobody logged in.
 */
export class TrustedProxy {
  private readonly trusted: (address: string | undefined) => boolean;

  constructor(
    private readonly userHeader: string,
    addresses: readonly string[],
    private readonly secrets: CredentialFile,
  ) {
    this.trusted = addressMatcher(addresses);
  }

  /** Whether the request carries the user header or the secret header (an attempt to count). */
  presents(request: FastifyRequest): boolean {
    return (
      headerValues(request, this.userHeader).length > 0 ||
      headerValues(request, PROXY_SECRET_HEADER).length > 0
    );
  }

  /** Undefined when the request carries neither the user header nor the secret header. */
  identify(request: FastifyRequest): ProxyVerdict | undefined {
    const users = headerValues(request, this.userHeader);
    const secrets = headerValues(request, PROXY_SECRET_HEADER);
    if (users.length === 0 && secrets.length === 0) return undefined;
    if (!this.trusted(request.socket.remoteAddress)) {
      return { refused: `a ${this.userHeader} header from an address not in trustedProxies` };
    }
    if (secrets.length !== 1) {
      return {
        refused:
          secrets.length === 0
            ? `a ${this.userHeader} header without the proxy's ${PROXY_SECRET_HEADER}`
            : `more than one ${PROXY_SECRET_HEADER} header`,
      };
    }
    if (matchingSecret(secrets[0] ?? '', this.secrets.current()) === undefined) {
      return { refused: `a ${PROXY_SECRET_HEADER} not in http.auth.proxySecretFile` };
    }
    if (users.length > 1) return { refused: `more than one ${this.userHeader} header` };
    const name = users[0]?.trim() ?? '';
    if (name === '') return { refused: `the proxy named no user in ${this.userHeader}` };
    return { user: name };
  }
}

/** Every value of header `name` the client sent, unjoined. */
function headerValues(request: FastifyRequest, name: string): string[] {
  const raw = request.raw.rawHeaders;
  const values: string[] = [];
  for (let index = 0; index + 1 < raw.length; index += 2) {
    if (raw[index]?.toLowerCase() === name.toLowerCase()) values.push(raw[index + 1] ?? '');
  }
  return values;
}
