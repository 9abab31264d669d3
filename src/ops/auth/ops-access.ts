import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OperatorChannel } from '../../outcomes/operator-actions.js';
import type { Settings } from '../../config/settings-schema.js';
import { UsageError } from '../../shared/usage-error.js';
import type { Logger } from '../../shared/logger.js';
import { isLoopback } from '../../shared/loopback.js';
import { BoundedWork } from './bounded-work.js';
import { CredentialFile } from './credential-file.js';
import {
  parseTokenLines,
  parseUserLines,
  type NamedSecret,
  type ParsedCredentials,
} from './credential-lines.js';
import { FailedAttempts } from './failed-attempts.js';
import { verifyPassword } from './password-hash.js';
import { digest, matchingSecret } from './secret-match.js';
import { PROXY_SECRET_HEADER, TrustedProxy } from './trusted-proxy.js';

/** Who a request came from, once authenticated. */
export interface OpsUser {
  readonly name: string;
  /** How: `bearer`, `basic`, `proxy`, or `open` (no authentication configured on loopback). */
  readonly via: Exclude<OperatorChannel, 'cli'>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated user of a protected route (ops-access.ts). */
    opsUser?: OpsUser;
  }
}

/**
 * What a request's credentials came to: a user; a refusal and why; the wait of a client with
 * too many failed attempts; no password check free now; or (undefined) none presented.
 */
type Authentication =
  | { readonly user: OpsUser }
  | { readonly refused: string }
  | { readonly retryAfterSeconds: number }
  | { readonly busy: true }
  | undefined;

/** Paths anyone may read: liveness, readiness without detail, and (unless it has a token) metrics. */
const OPEN_PATHS = new Set(['/healthz', '/readyz']);
const METRICS_PATH = '/metrics';
/**
 * Failed credential attempts a client may make in a window before it is refused (429) until
 * the window ends: a person mistyping is not held back, a guesser gets 10 a minute. Counted per
 * surface (the dashboard and `/api`, and `/metrics`), so a scraper with a stale token does not
 * lock the people behind the same address out of the dashboard, nor they it.
 */
const FAILED_ATTEMPTS_ALLOWED = 10;
const FAILED_ATTEMPTS_WINDOW_MS = 60_000;
/**
 * Password hashes at once, and waiting: two leave libuv's other two threads to file reads and
 * DNS, and hold 64 MiB at most; 16 waiting is about half a second of hashing.
 */
const HASHES_RUNNING = 2;
const HASHES_WAITING = 16;
/** Failed attempts are logged at most this often per peer and reason, for so many at most. */
const FAILURE_LOG_INTERVAL_MS = 10_000;
const FAILURE_LOG_PEERS = 10_000;
/** Verified basic-auth credentials kept (as digests) so a page's assets do not each cost a hash. */
const VERIFIED_CACHE_SIZE = 64;

/**
 * Who may use the ops server, decided once per request, before any route runs:
 * - `/healthz`, `/readyz` (its detail only to an authenticated caller) and `/metrics` (or, with
 *   `http.metricsTokenFile`, to that bearer token) are open;
 * - everything else (the dashboard, `/api/*`, `/queues`) needs a bearer token, a basic-auth user
 *   or a trusted proxy's user header (with the proxy's secret, trusted-proxy.ts), answers only to
 *   allowed `Host` names (a browser on another name is a DNS rebinding attempt), and refuses a
 *   state-changing request from another origin (CSRF: the `Origin` header, or no ambient
 *   credential).
 * Comparisons of secrets are constant-time; a failure is logged without the credential.
 */
export class OpsAccess {
  private readonly tokens: CredentialFile | undefined;
  private readonly users: CredentialFile | undefined;
  private readonly metricsTokens: CredentialFile | undefined;
  private readonly proxy: TrustedProxy | undefined;
  private readonly allowedHosts: readonly string[];
  private readonly verified = new Map<string, string>();
  private readonly lastFailureLog = new Map<string, number>();
  private readonly attempts = new FailedAttempts(
    FAILED_ATTEMPTS_ALLOWED,
    FAILED_ATTEMPTS_WINDOW_MS,
  );
  private readonly metricsAttempts = new FailedAttempts(
    FAILED_ATTEMPTS_ALLOWED,
    FAILED_ATTEMPTS_WINDOW_MS,
  );
  private readonly hashing = new BoundedWork(HASHES_RUNNING, HASHES_WAITING);

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
    const proxySettings = [
      auth.proxyUserHeader,
      auth.trustedProxies.length === 0 ? undefined : auth.trustedProxies,
      auth.proxySecretFile,
    ];
    if (proxySettings.some((value) => value === undefined) && proxySettings.some(Boolean)) {
      throw new UsageError(
        'http.auth: a proxy user header (PAW_OPS_PROXY_USER_HEADER) is believed only from the proxies ' +
          `listed in PAW_OPS_TRUSTED_PROXIES that also send the ${PROXY_SECRET_HEADER} header with a ` +
          'secret from PAW_OPS_PROXY_SECRET_FILE (`echo "proxy:$(openssl rand -hex 32)" > FILE`): ' +
          'set all three, or none',
      );
    }
    const proxySecrets = file(
      auth.proxySecretFile,
      'http.auth.proxySecretFile (PAW_OPS_PROXY_SECRET_FILE)',
      parseTokenLines,
    );
    this.proxy =
      auth.proxyUserHeader === undefined || proxySecrets === undefined
        ? undefined
        : new TrustedProxy(auth.proxyUserHeader, auth.trustedProxies, proxySecrets);
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
    return this.tokens !== undefined || this.users !== undefined || this.proxy !== undefined;
  }

  /** The fastify `onRequest` hook. */
  readonly hook = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const path = request.url.split('?')[0] ?? '/';
    if (OPEN_PATHS.has(path)) {
      // Readiness detail (what failed and why) is for those who may see the dashboard. Probes
      // are answered whatever else: a client held back or a busy server just gets no detail.
      const authentication = await this.authenticate(request);
      if (authentication !== undefined && 'user' in authentication) {
        request.opsUser = authentication.user;
      }
      return;
    }
    if (path === METRICS_PATH) {
      if (this.metricsTokens === undefined) return;
      const client = clientOf(request);
      const wait = this.metricsAttempts.retryAfterSeconds(client);
      if (wait > 0) {
        this.tooManyAttempts(request, reply, wait);
        return;
      }
      const presented = request.headers.authorization !== undefined;
      if (presented) this.metricsAttempts.begin(client);
      if (this.bearerIn(request, this.metricsTokens) !== undefined) {
        if (presented) this.metricsAttempts.succeeded(client);
        return;
      }
      this.refuse(
        request,
        reply,
        'a valid metrics bearer token',
        'Bearer realm="paw metrics"',
        'no valid metrics bearer token',
      );
      return;
    }
    if (!this.hostAllowed(request.headers.host)) {
      this.logFailure(request, 'Host not allowed');
      await hangUp(reply)
        .code(421)
        .send({
          error: `this server does not answer to Host ${request.headers.host ?? '(none)'}; add it to http.allowedHosts (PAW_HTTP_ALLOWED_HOSTS)`,
        });
      return;
    }
    const authentication = await this.authenticate(request);
    if (authentication !== undefined && 'retryAfterSeconds' in authentication) {
      this.tooManyAttempts(request, reply, authentication.retryAfterSeconds);
      return;
    }
    if (authentication !== undefined && 'busy' in authentication) {
      this.logFailure(request, 'too many password checks at once');
      await hangUp(reply)
        .code(503)
        .header('retry-after', '1')
        .send({ error: 'too many password checks at once: try again in a second' });
      return;
    }
    if (authentication === undefined || 'refused' in authentication) {
      this.refuse(request, reply, 'credentials', this.challenge(), authentication?.refused);
      return;
    }
    const { user } = authentication;
    request.opsUser = user;
    if (!['GET', 'HEAD', 'OPTIONS'].includes(request.method) && !this.sameOrigin(request, user)) {
      this.logFailure(request, 'cross-origin state change refused');
      await hangUp(reply)
        .code(403)
        .send({ error: 'a state-changing request must come from this server’s own pages' });
    }
  };

  /**
   * Who the request's credentials say it is; `refused` (with why, never the credential) when it
   * carried some that are not good; undefined when it carried none. A client with too many
   * failed attempts gets its wait instead, its credentials unchecked; `busy` when its password
   * could not be checked now.
   */
  private async authenticate(request: FastifyRequest): Promise<Authentication> {
    if (!this.authenticates) {
      return isLoopback(request.socket.remoteAddress ?? '') || this.settings.allowUnauthenticated
        ? { user: { name: 'anonymous', via: 'open' } }
        : undefined;
    }
    const header = request.headers.authorization ?? '';
    const bearer = this.tokens !== undefined && /^bearer\s/i.test(header);
    const basic = this.users !== undefined && /^basic /i.test(header);
    // A proxy's secret is guessed like a token: its attempts count the same way.
    const presented = bearer || basic || this.proxy?.presents(request) === true;
    const client = clientOf(request);
    if (presented) {
      const wait = this.attempts.retryAfterSeconds(client);
      if (wait > 0) return { retryAfterSeconds: wait };
      this.attempts.begin(client);
    }
    const authentication = await this.checkCredentials(request, bearer, basic);
    const counted = authentication !== undefined && 'refused' in authentication;
    if (presented && !counted) this.attempts.succeeded(client);
    return authentication;
  }

  private async checkCredentials(
    request: FastifyRequest,
    bearer: boolean,
    basic: boolean,
  ): Promise<Authentication> {
    const refused: string[] = [];
    const header = request.headers.authorization ?? '';
    if (bearer && this.tokens !== undefined) {
      const token = this.bearerIn(request, this.tokens);
      if (token !== undefined) return { user: { name: token.name, via: 'bearer' } };
      refused.push('a bearer token not in http.auth.tokenFile');
    }
    if (basic) {
      const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      const name = decoded.slice(0, Math.max(colon, 0));
      const matches = colon > 0 ? await this.userMatches(name, decoded.slice(colon + 1)) : false;
      if (matches === undefined) return { busy: true };
      if (matches) return { user: { name, via: 'basic' } };
      refused.push('a user and password that do not match http.auth.usersFile');
    }
    const proxy = this.proxy?.identify(request);
    if (proxy !== undefined && 'user' in proxy) return { user: { name: proxy.user, via: 'proxy' } };
    if (proxy !== undefined) refused.push(proxy.refused);
    return refused.length === 0 ? undefined : { refused: refused.join('; ') };
  }

  /** The entry of `file` whose token the request bears, if any. */
  private bearerIn(request: FastifyRequest, file: CredentialFile): NamedSecret | undefined {
    const match = /^bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
    return match === null ? undefined : matchingSecret(match[1] ?? '', file.current());
  }

  /** Whether the password is `name`'s; undefined when it could not be checked now (busy). */
  private async userMatches(name: string, password: string): Promise<boolean | undefined> {
    const hash = this.users?.current().find((entry) => entry.name === name)?.secret;
    const key = digest(`${name}\0${password}`).toString('hex');
    if (hash !== undefined && this.verified.get(key) === hash) return true;
    // A user that does not exist costs a hash too, so the time taken does not tell.
    const checking = this.hashing.run(() => verifyPassword(password, hash ?? DUMMY_HASH));
    if (checking === undefined) return undefined;
    const ok = await checking;
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
    why = `no ${what}`,
  ): void {
    this.logFailure(request, why);
    if (challenge !== '') void reply.header('www-authenticate', challenge);
    void hangUp(reply)
      .code(401)
      .send({ error: `authentication required: send ${what}` });
  }

  private tooManyAttempts(request: FastifyRequest, reply: FastifyReply, wait: number): void {
    this.logFailure(request, 'too many failed attempts from this address');
    void hangUp(reply)
      .code(429)
      .header('retry-after', String(wait))
      .send({ error: `too many failed attempts from this address: try again in ${wait} s` });
  }

  private logFailure(request: FastifyRequest, why: string): void {
    const peer = clientOf(request);
    const now = Date.now();
    // Per peer and reason: a flood of one kind does not hide another.
    const key = `${peer} ${why}`;
    if (now - (this.lastFailureLog.get(key) ?? 0) < FAILURE_LOG_INTERVAL_MS) return;
    // Bounded: a flood from many addresses forgets when each was last logged, nothing else.
    if (this.lastFailureLog.size >= FAILURE_LOG_PEERS) this.lastFailureLog.clear();
    this.lastFailureLog.set(key, now);
    // Never the credential: only who asked, for what, and why it was refused.
    this.logger.warn(
      { peer, method: request.method, path: request.url.split('?')[0], why },
      'ops request refused',
    );
  }
}

/** Who a request is for counting and logging its failures: its peer's address. */
function clientOf(request: FastifyRequest): string {
  return request.socket.remoteAddress ?? 'unknown';
}

/**
 * A refusal closes its connection: the refused request's body is never read, and a client that
 * trickles one in would otherwise hold the connection as long as it liked.
 */
function hangUp(reply: FastifyReply): FastifyReply {
  return reply.header('connection', 'close');
}

/** A hash that matches no password, checked for unknown users (constant work). */
const DUMMY_HASH =
  '$scrypt$N=32768,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';
