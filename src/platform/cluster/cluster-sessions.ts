import type { z } from 'zod';
import { Secret } from '../../config/secret.js';
import type { Logger } from '../../shared/logger.js';
import { abortable } from '../http/abortable.js';
import { appendPath } from '../http/append-path.js';
import { errorFromResponse } from '../http/error-factory.js';
import type { BearerAuthorization, HttpCaller } from '../http/http-caller.js';
import { assertTransportSecurity } from '../http/origin-guard.js';
import { parseJsonBody } from '../http/parse-json-body.js';
import {
  AuthenticationError,
  NotFoundError,
  UnsupportedClusterVersionError,
  isPlatformError,
  type PlatformError,
} from '../http/platform-errors.js';
import type { HttpMethod } from '../defaults/default-routes.js';
import { PAT_MINIMUM_VERSION, supportsPersonalAccessTokens } from './cluster-version.js';
import { clusterVersionSchema, sessionResponseSchema } from './session-response.js';

export type ClusterCredentialKind = 'service-account' | 'personal-access-token';

export interface ClusterCredentials {
  readonly kind: ClusterCredentialKind;
  /** `client|<uuid>` or `pat|<uuid>`. */
  readonly clientId: string;
  readonly clientSecret: Secret;
}

/** A live session on one cluster. */
export interface ClusterSession {
  readonly clusterOrigin: string;
  readonly kind: ClusterCredentialKind;
  readonly clientId: string;
  /** Service-account sessions have one; personal-access-token sessions do not. */
  readonly sessionId: string | undefined;
  readonly token: Secret;
  readonly expirationTime: string;
  readonly organizationId: string | undefined;
}

interface CachedSession {
  readonly session: ClusterSession;
  readonly refreshAt: number;
  readonly expiresAt: number;
}

export interface ClusterSessionsOptions {
  readonly http: HttpCaller;
  readonly logger: Logger;
  /** Replace a cached session this long before it expires (at most a tenth of its lifetime). */
  readonly refreshMarginSeconds: number;
  readonly allowInsecureHttp: boolean;
  /** The credentials for a kind of session; throws a UsageError when none are configured. */
  readonly credentials: (kind: ClusterCredentialKind) => ClusterCredentials;
  /**
   * Reads the service account's credentials again (from its credentials file) after the cluster
   * refused them: a rotation by another paw process may have just replaced the secret. Resolves
   * to undefined when they cannot change.
   */
  readonly reloadCredentials?: () => Promise<ClusterCredentials | undefined>;
  readonly now?: () => number;
}

const SESSION_PATHS: Record<ClusterCredentialKind, string> = {
  'service-account': '/api/v1/service_account/session',
  'personal-access-token': '/api/v1/personal_access_token/session',
};

/**
 * Sessions on on-premises clusters (spec 4.5, 4.6, 5.5, 5.6). Each cluster is its own origin and
 * its session token goes nowhere else. Sessions are cached per cluster and credentials until
 * shortly before `expirationTime`; a session being replaced is deleted first, and `close()`
 * deletes every session still open, so a long-running process never piles up sessions against
 * the cluster's per-account cap. A personal-access-token session on a cluster older than 9.6.0
 * fails with an {@link UnsupportedClusterVersionError} before the credentials are sent.
 */
export class ClusterSessions {
  private readonly cache = new Map<string, CachedSession>();
  private readonly opening = new Map<string, Promise<CachedSession>>();
  private readonly now: () => number;

  constructor(private readonly options: ClusterSessionsOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The cluster's software version (no authentication needed). */
  async version(clusterUrl: URL | string, signal?: AbortSignal): Promise<string> {
    const base = this.clusterBase(clusterUrl);
    const path = '/api/v1/cluster/me/version';
    const result = await this.options.http.call({
      operation: 'clusterVersion',
      method: 'GET',
      route: path,
      url: appendPath(base, path),
      allowedOrigin: base.origin,
      idempotent: true,
      gated: false,
      signal,
      parse: (response) => parseJsonBody(response, 'clusterVersion', clusterVersionSchema),
    });
    return result.version;
  }

  /**
   * Opens a new session that the caller owns (it is not cached and not closed by `close()`):
   * what `paw cluster-session create` hands to a user.
   */
  async open(
    clusterUrl: URL | string,
    kind: ClusterCredentialKind,
    signal?: AbortSignal,
  ): Promise<ClusterSession> {
    return (await this.create(this.clusterBase(clusterUrl), kind, signal)).session;
  }

  /** The cached session for this cluster and kind, opening or replacing it when needed. */
  async session(
    clusterUrl: URL | string,
    kind: ClusterCredentialKind,
    signal?: AbortSignal,
  ): Promise<ClusterSession> {
    const base = this.clusterBase(clusterUrl);
    const key = this.key(base, kind);
    const cached = this.cache.get(key);
    if (cached !== undefined && this.now() < cached.refreshAt) return cached.session;
    let opening = this.opening.get(key);
    if (opening === undefined) {
      opening = this.replace(base, kind, key, cached).finally(() => this.opening.delete(key));
      this.opening.set(key, opening);
    }
    return (await abortable(opening, signal)).session;
  }

  /**
   * Calls the cluster's API with the cached session token; a 401 drops the session and the call
   * is replayed once with a new one.
   */
  async request<S extends z.ZodType>(
    clusterUrl: URL | string,
    kind: ClusterCredentialKind,
    call: {
      readonly operation: string;
      readonly method: HttpMethod;
      readonly path: string;
      readonly body?: unknown;
      readonly idempotent?: boolean;
    },
    schema: S,
    signal?: AbortSignal,
  ): Promise<z.output<S>> {
    const base = this.clusterBase(clusterUrl);
    return this.options.http.call({
      operation: call.operation,
      method: call.method,
      route: call.path,
      url: appendPath(base, call.path),
      allowedOrigin: base.origin,
      idempotent: call.idempotent ?? call.method === 'GET',
      gated: false,
      authorization: this.authorization(base, kind),
      body: call.body === undefined ? undefined : { json: call.body },
      signal,
      parse: (response) => parseJsonBody(response, call.operation, schema),
    });
  }

  /**
   * Deletes a session by id (someone's, e.g. one `open()` handed out earlier), authenticating
   * with this process's own cached session.
   */
  async deleteSession(
    clusterUrl: URL | string,
    kind: ClusterCredentialKind,
    sessionId: string,
    signal?: AbortSignal,
  ): Promise<void> {
    const base = this.clusterBase(clusterUrl);
    const path = `/api/v1/session/${encodeURIComponent(sessionId)}`;
    await this.options.http.call({
      operation: 'deleteClusterSession',
      method: 'DELETE',
      route: '/api/v1/session/{sessionId}',
      url: appendPath(base, path),
      allowedOrigin: base.origin,
      idempotent: true,
      gated: false,
      authorization: this.authorization(base, kind),
      signal,
      parse: () => undefined,
    });
  }

  /** Deletes this process's cached session on a cluster, if it has one. */
  async release(clusterUrl: URL | string, kind: ClusterCredentialKind): Promise<void> {
    const base = this.clusterBase(clusterUrl);
    const key = this.key(base, kind);
    await this.opening.get(key)?.catch(() => undefined);
    const cached = this.cache.get(key);
    this.cache.delete(key);
    if (cached !== undefined) await this.end(cached);
  }

  /** Deletes every cached session. Never throws. */
  async close(): Promise<void> {
    await Promise.all([...this.opening.values()].map((opening) => opening.catch(() => undefined)));
    const sessions = [...this.cache.values()];
    this.cache.clear();
    await Promise.all(sessions.map((cached) => this.end(cached)));
  }

  /** How many sessions this process holds open (for diagnostics and tests). */
  get openSessions(): number {
    return this.cache.size;
  }

  private authorization(base: URL, kind: ClusterCredentialKind): BearerAuthorization {
    const key = this.key(base, kind);
    return {
      token: async (signal) => (await this.session(base, kind, signal)).token,
      rejected: (token) => {
        // The cluster no longer knows this session: forget it (there is nothing left to delete).
        if (this.cache.get(key)?.session.token === token) this.cache.delete(key);
      },
    };
  }

  private async replace(
    base: URL,
    kind: ClusterCredentialKind,
    key: string,
    previous: CachedSession | undefined,
  ): Promise<CachedSession> {
    if (previous !== undefined) {
      // Delete the old session before opening the next, so that this process never holds two.
      this.cache.delete(key);
      await this.end(previous);
    }
    const created = await this.create(base, kind);
    this.cache.set(key, created);
    return created;
  }

  private async create(
    base: URL,
    kind: ClusterCredentialKind,
    signal?: AbortSignal,
  ): Promise<CachedSession> {
    let credentials = this.options.credentials(kind);
    if (kind === 'personal-access-token') await this.assertPatSupported(base, signal);
    const requestedAt = this.now();
    let response: z.output<typeof sessionResponseSchema>;
    try {
      response = await this.openSession(base, kind, credentials, signal);
    } catch (error) {
      // The secret may have been rotated (and the file rewritten) between reading it and using
      // it: read it again and try once more, as the token provider does for the gateway.
      const reloaded = await this.reloadedAfterRefusal(error, kind, credentials);
      if (reloaded === undefined) throw error;
      credentials = reloaded;
      response = await this.openSession(base, kind, credentials, signal);
    }
    const expiresAt = Date.parse(response.expirationTime);
    const lifetimeMs = Math.max(0, expiresAt - requestedAt);
    const marginMs = Math.min(this.options.refreshMarginSeconds * 1000, lifetimeMs / 10);
    const session: ClusterSession = {
      clusterOrigin: base.origin,
      kind,
      clientId: response.serviceAccountId ?? response.clientId ?? credentials.clientId,
      sessionId: response.sessionId ?? undefined,
      token: new Secret(response.token),
      expirationTime: response.expirationTime,
      organizationId: response.organizationId ?? undefined,
    };
    this.options.logger.debug(
      {
        cluster: base.origin,
        kind,
        sessionId: session.sessionId,
        expirationTime: session.expirationTime,
      },
      'cluster session opened',
    );
    return { session, expiresAt, refreshAt: expiresAt - marginMs };
  }

  private async openSession(
    base: URL,
    kind: ClusterCredentialKind,
    credentials: ClusterCredentials,
    signal: AbortSignal | undefined,
  ): Promise<z.output<typeof sessionResponseSchema>> {
    const path = SESSION_PATHS[kind];
    const operation =
      kind === 'service-account' ? 'createServiceAccountSession' : 'createPatSession';
    return this.options.http.call({
      operation,
      method: 'POST',
      route: path,
      url: appendPath(base, path),
      allowedOrigin: base.origin,
      // A repeated create could leave an orphan session counting against the cap.
      idempotent: false,
      gated: false,
      body: {
        json: { clientId: credentials.clientId, clientSecret: credentials.clientSecret.reveal() },
      },
      signal,
      parse: (raw) => parseJsonBody(raw, operation, sessionResponseSchema),
      classify: (raw, name) => classifySessionFailure(raw, name, kind),
    });
  }

  /** New credentials worth one more try after the cluster refused these, or undefined. */
  private async reloadedAfterRefusal(
    error: unknown,
    kind: ClusterCredentialKind,
    used: ClusterCredentials,
  ): Promise<ClusterCredentials | undefined> {
    if (!(error instanceof AuthenticationError) || kind !== 'service-account') return undefined;
    const reloaded = await this.options.reloadCredentials?.();
    if (reloaded === undefined || reloaded.clientSecret.reveal() === used.clientSecret.reveal())
      return undefined;
    this.options.logger.info(
      { clientId: reloaded.clientId },
      'cluster refused the secret; using the one now in the credentials file',
    );
    return reloaded;
  }

  /** Refuses a PAT session on a cluster below 9.6.0 before the credentials are sent. */
  private async assertPatSupported(base: URL, signal?: AbortSignal): Promise<void> {
    let version: string;
    try {
      version = await this.version(base, signal);
    } catch (error) {
      // An older cluster may not say; the session endpoint's own answer is classified too.
      if (isPlatformError(error) && error.kind !== 'connection' && error.kind !== 'timeout') return;
      throw error;
    }
    if (!supportsPersonalAccessTokens(version)) throw patTooOld('createPatSession', base, version);
  }

  /**
   * Deletes the session a token belongs to (`DELETE /api/v1/session/me` with that token): how a
   * personal-access-token session, which has no id, is ended.
   */
  async deleteSessionOfToken(
    clusterUrl: URL | string,
    token: Secret,
    signal?: AbortSignal,
  ): Promise<void> {
    const base = this.clusterBase(clusterUrl);
    await this.options.http.call({
      operation: 'deleteClusterSession',
      method: 'DELETE',
      route: '/api/v1/session/me',
      url: appendPath(base, '/api/v1/session/me'),
      allowedOrigin: base.origin,
      idempotent: true,
      gated: false,
      authorization: { token: async () => token, rejected: () => undefined },
      signal,
      parse: () => undefined,
    });
  }

  /** Deletes a cached session with its own token. Never throws. */
  private async end(cached: CachedSession): Promise<void> {
    const { session } = cached;
    if (this.now() >= cached.expiresAt) return;
    try {
      await this.deleteSessionOfToken(session.clusterOrigin, session.token);
      this.options.logger.debug(
        { cluster: session.clusterOrigin, sessionId: session.sessionId },
        'cluster session deleted',
      );
    } catch (error) {
      if (error instanceof AuthenticationError || error instanceof NotFoundError) return;
      this.options.logger.warn(
        {
          cluster: session.clusterOrigin,
          err: error instanceof Error ? error.message : String(error),
        },
        'could not delete a cluster session; it ends when it expires',
      );
    }
  }

  private clusterBase(clusterUrl: URL | string): URL {
    const url = typeof clusterUrl === 'string' ? new URL(clusterUrl) : clusterUrl;
    assertTransportSecurity(url, {
      allowInsecureHttp: this.options.allowInsecureHttp,
      setting: 'cluster URL',
    });
    return new URL(url.href.replace(/\/+$/, ''));
  }

  private key(base: URL, kind: ClusterCredentialKind): string {
    return `${base.href} ${kind}`;
  }
}

function classifySessionFailure(
  response: { status: number; body: string; requestId: string | undefined },
  operation: string,
  kind: ClusterCredentialKind,
): PlatformError {
  const error = errorFromResponse({
    operation,
    status: response.status,
    body: response.body,
    requestId: response.requestId,
  });
  if (
    kind === 'personal-access-token' &&
    /9\.6\.0|personal access token/i.test(error.platformMessage)
  ) {
    if (error.status === 404 || error.status === 400) {
      return new UnsupportedClusterVersionError({
        operation,
        status: error.status,
        code: 'CLUSTER_VERSION_TOO_OLD',
        message: `${error.platformMessage}; use a service-account session on this cluster, or upgrade it to ${PAT_MINIMUM_VERSION} or later`,
        requestId: error.requestId,
        mayHaveTakenEffect: false,
      });
    }
  }
  return error;
}

function patTooOld(operation: string, base: URL, version: string): UnsupportedClusterVersionError {
  return new UnsupportedClusterVersionError({
    operation,
    code: 'CLUSTER_VERSION_TOO_OLD',
    message:
      `the cluster at ${base.origin} runs ${version}; personal access token sessions need ` +
      `${PAT_MINIMUM_VERSION} or later. Use a service-account session on this cluster, or upgrade it`,
    mayHaveTakenEffect: false,
  });
}
