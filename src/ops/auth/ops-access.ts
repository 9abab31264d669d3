import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Settings } from '../../config/settings-schema.js';
import { UsageError } from '../../errors/usage-error.js';
import type { Logger } from '../../log/logger.js';
import { isLoopback } from '../../net/loopback.js';
import { addressMatcher } from './address-match.js';
import { CredentialFile } from './credential-file.js';
import {
  parseTokenLines,
  parseUserLines,
  type NamedSecret,
  type ParsedCredentials,
} from './credential-lines.js';
import { verifyPassword } from './password-hash.js';

/** Who a request came from, once authenticated. */
export interface OpsUser {
  readonly name: string;
  /** How: `bearer`, `basic`, `proxy`, or `open` (no authentication configured on loopback). */
  readonly via: 'bearer' | 'basic' | 'proxy' | 'open';
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated user of a protected route (ops-access.ts). */
    opsUser?: OpsUser;
  }
}

/** Paths anyone may read: liveness, readiness without detail, and (unless it has a token) metrics. */
const OPEN_PATHS = new Set(['/healthz', '/readyz']);
const METRICS_PATH = '/metrics';
/** Failed attempts are logged at most this often per peer. */
const FAILURE_LOG_INTERVAL_MS = 10_000;
/** Verified basic-auth credentials kept (as digests) so a page's assets do not each cost a hash. */
const VERIFIED_CACHE_SIZE = 64;

/**
 * Who may use the ops server, decided once per request, before any route runs:
 * - `/healthz`, `/readyz` (its detail only to an authenticated caller) and `/metrics` (or, with
 *   `http.metricsTokenFile`, to that bearer token) are open;
 * - everything else (the dashboard, `/api/*`, `/queues`) needs a bearer token, a basic-auth user
 *   or a trusted proxy's user header, answers only to allowed `Host` names (a browser on another
 *   name is a DNS rebinding attempt), and refuses a state-changing request from another origin
 *   (CSRF: the `Origin` header, or no ambient credential).
 * Comparisons of secrets are constant-time; a failure is logged without the credential.
 */
export class OpsAccess {
  private readonly tokens: CredentialFile | undefined;
  private readonly users: CredentialFile | undefined;
  private readonly metricsTokens: CredentialFile | undefined;
  private readonly trustedProxy: (address: string | undefined) => boolean;
  private readonly allowedHosts: readonly string[];
  private readonly verified = new Map<string, string>();
  private readonly lastFailureLog = new Map<string, number>();

  constructor(
    private readonly settings: Settings['http'],
    private readonly logger: Logger,
    listeningHost: string,
  ) {
    const { auth } = settings;
    const file = (
      path: string | undefined,
      setting: string,
      parse: (text: string) => ParsedCredentials,
    ) => (path === undefined ? undefined : new CredentialFile(path, setting, parse, logger));
    this.tokens = file(auth.tokenFile, 'http.auth.tokenFile (PAW_OPS_TOKEN_FILE)', parseTokenLines);
    this.users = file(auth.usersFile, 'http.auth.usersFile (PAW_OPS_USERS_FILE)', parseUserLines);
    this.metricsTokens = file(
      settings.metricsTokenFile,
      'http.metricsTokenFile (PAW_METRICS_TOKEN_FILE)',
      parseTokenLines,
    );
    if ((auth.proxyUserHeader === undefined) !== (auth.trustedProxies.length === 0)) {
      throw new UsageError(
        'http.auth: a proxy user header (PAW_OPS_PROXY_USER_HEADER) needs the proxies it is believed from (PAW_OPS_TRUSTED_PROXIES), and the other way round',
      );
    }
    this.trustedProxy = addressMatcher(auth.trustedProxies);
    this.allowedHosts = [
      'localhost',
      '127.0.0.1',
      '::1',
      ...(listeningHost === '0.0.0.0' || listeningHost === '::' ? [] : [listeningHost]),
      ...settings.allowedHosts,
    ].map((host) => host.toLowerCase());
    if (!this.authenticates && !isLoopback(listeningHost) && !settings.allowUnauthenticated) {
      throw new UsageError(
        `the ops server would listen on ${listeningHost} with no authentication: the dashboard and /queues ` +
          'would be open to anyone who reaches the port. Set http.auth.tokenFile (PAW_OPS_TOKEN_FILE), ' +
          'http.auth.usersFile or a trusted proxy header; or, if that is what you mean, ' +
          'http.allowUnauthenticated (PAW_HTTP_ALLOW_UNAUTHENTICATED=true)',
      );
    }
  }

  /** Whether any way of authenticating is configured. */
  get authenticates(): boolean {
    return (
      this.tokens !== undefined ||
      this.users !== undefined ||
      this.settings.auth.proxyUserHeader !== undefined
    );
  }

  /** The fastify `onRequest` hook. */
  readonly hook = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const path = request.url.split('?')[0] ?? '/';
    if (OPEN_PATHS.has(path)) {
      // Readiness detail (what failed and why) is for those who may see the dashboard.
      const user = await this.authenticate(request);
      if (user !== undefined) request.opsUser = user;
      return;
    }
    if (path === METRICS_PATH) {
      if (
        this.metricsTokens !== undefined &&
        this.bearerIn(request, this.metricsTokens) === undefined
      ) {
        this.refuse(request, reply, 'a valid metrics bearer token', 'Bearer realm="paw metrics"');
      }
      return;
    }
    if (!this.hostAllowed(request.headers.host)) {
      this.logFailure(request, 'Host not allowed');
      await reply.code(421).send({
        error: `this server does not answer to Host ${request.headers.host ?? '(none)'}; add it to http.allowedHosts (PAW_HTTP_ALLOWED_HOSTS)`,
      });
      return;
    }
    const user = await this.authenticate(request);
    if (user === undefined) {
      this.refuse(request, reply, 'credentials', this.challenge());
      return;
    }
    request.opsUser = user;
    if (!['GET', 'HEAD', 'OPTIONS'].includes(request.method) && !this.sameOrigin(request, user)) {
      this.logFailure(request, 'cross-origin state change refused');
      await reply
        .code(403)
        .send({ error: 'a state-changing request must come from this server’s own pages' });
    }
  };

  private async authenticate(request: FastifyRequest): Promise<OpsUser | undefined> {
    if (!this.authenticates) {
      return isLoopback(request.socket.remoteAddress ?? '') || this.settings.allowUnauthenticated
        ? { name: 'anonymous', via: 'open' }
        : undefined;
    }
    const header = request.headers.authorization ?? '';
    const token = this.tokens === undefined ? undefined : this.bearerIn(request, this.tokens);
    if (token !== undefined) return { name: token.name, via: 'bearer' };
    if (this.users !== undefined && /^basic /i.test(header)) {
      const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (
        colon > 0 &&
        (await this.userMatches(decoded.slice(0, colon), decoded.slice(colon + 1)))
      ) {
        return { name: decoded.slice(0, colon), via: 'basic' };
      }
    }
    const proxyHeader = this.settings.auth.proxyUserHeader;
    if (proxyHeader !== undefined && this.trustedProxy(request.socket.remoteAddress)) {
      const value = request.headers[proxyHeader.toLowerCase()];
      const name = Array.isArray(value) ? value[0] : value;
      if (name !== undefined && name.trim() !== '') return { name: name.trim(), via: 'proxy' };
    }
    return undefined;
  }

  /** The entry of `file` whose token the request bears, if any. */
  private bearerIn(request: FastifyRequest, file: CredentialFile): NamedSecret | undefined {
    const match = /^bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
    if (match === null) return undefined;
    const given = digest(match[1] ?? '');
    // Every token is compared, so the time taken does not say which one came close.
    let found: NamedSecret | undefined;
    for (const entry of file.current()) {
      if (timingSafeEqual(given, digest(entry.secret))) found ??= entry;
    }
    return found;
  }

  private async userMatches(name: string, password: string): Promise<boolean> {
    const hash = this.users?.current().find((entry) => entry.name === name)?.secret;
    const key = digest(`${name}\0${password}`).toString('hex');
    if (hash !== undefined && this.verified.get(key) === hash) return true;
    // A user that does not exist costs a hash too, so the time taken does not tell.
    const ok = await verifyPassword(password, hash ?? DUMMY_HASH);
    if (ok && hash !== undefined) {
      if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.clear();
      this.verified.set(key, hash);
      return true;
    }
    return false;
  }

  private hostAllowed(host: string | undefined): boolean {
    if (host === undefined) return false;
    const name = host
      .toLowerCase()
      .replace(/:\d+$/, '')
      .replace(/^\[|\]$/g, '');
    return this.allowedHosts.some((allowed) =>
      allowed.startsWith('*.')
        ? name.endsWith(allowed.slice(1))
        : name === allowed.replace(/^\[|\]$/g, ''),
    );
  }

  /**
   * A state change from a browser carries `Origin`: it must be this server's own. Without one
   * it must come with a bearer token, which a browser never attaches by itself (no CSRF).
   */
  private sameOrigin(request: FastifyRequest, user: OpsUser): boolean {
    const origin = request.headers.origin;
    if (origin === undefined) return user.via === 'bearer' || user.via === 'open';
    try {
      return new URL(origin).host.toLowerCase() === (request.headers.host ?? '').toLowerCase();
    } catch {
      return false;
    }
  }

  private challenge(): string {
    return [
      this.tokens === undefined ? undefined : 'Bearer realm="paw"',
      this.users === undefined ? undefined : 'Basic realm="paw", charset="UTF-8"',
    ]
      .filter((part) => part !== undefined)
      .join(', ');
  }

  private refuse(
    request: FastifyRequest,
    reply: FastifyReply,
    what: string,
    challenge: string,
  ): void {
    this.logFailure(request, `no valid ${what}`);
    if (challenge !== '') void reply.header('www-authenticate', challenge);
    void reply.code(401).send({ error: `authentication required: send ${what}` });
  }

  private logFailure(request: FastifyRequest, why: string): void {
    const peer = request.socket.remoteAddress ?? 'unknown';
    const now = Date.now();
    if (now - (this.lastFailureLog.get(peer) ?? 0) < FAILURE_LOG_INTERVAL_MS) return;
    this.lastFailureLog.set(peer, now);
    // Never the credential: only who asked, for what, and why it was refused.
    this.logger.warn(
      { peer, method: request.method, path: request.url.split('?')[0], why },
      'ops request refused',
    );
  }
}

/** A hash that matches no password, checked for unknown users (constant work). */
const DUMMY_HASH =
  '$scrypt$N=32768,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
