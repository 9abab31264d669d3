import type { Secret } from '../../config/secret.js';
import type { Logger } from '../../shared/logger.js';
import { abortable } from '../http/abortable.js';
import type { BearerAuthorization, HttpCaller } from '../http/http-caller.js';
import { AuthenticationError } from '../http/platform-errors.js';
import { safelyNotify, type PlatformObserver } from '../platform-observer.js';
import type { ServiceAccountCredentials } from './credentials-file.js';
import type { CredentialsSource } from './credentials-source.js';
import { revokeSession } from './session-revocation.js';
import { requestAccessToken } from './token-request.js';

/** A refresh margin never exceeds this share of a token's lifetime. */
const MAX_MARGIN_SHARE = 0.1;

export interface TokenProviderOptions {
  readonly credentials: CredentialsSource;
  readonly http: HttpCaller;
  readonly logger: Logger;
  /** Refresh this long before expiry (capped at a tenth of the token's lifetime). */
  readonly refreshMarginSeconds: number;
  /** Lifetime assumed when the response has no `expires_in`. */
  readonly defaultLifetimeSeconds: number;
  /** The clock; tests that are about time pass their own. */
  readonly now?: () => number;
  /** Told when a refresh succeeds or fails (metrics). */
  readonly observer?: PlatformObserver;
}

interface CachedToken {
  readonly value: Secret;
  readonly clientId: string;
  readonly refreshAt: number;
  readonly expiresAt: number;
  readonly generation: number;
}

/** Counters for diagnostics (and for tests that check the steady state). */
export interface TokenProviderStats {
  readonly tokenRequests: number;
  readonly rejectedTokens: number;
  readonly credentialReloads: number;
}

/**
 * The platform access token (client credentials, spec 4.1 and 5), shared by every call of a
 * client:
 * - cached and reused until shortly before it expires; concurrent callers share one request
 *   (single flight), so steady state costs one token request per token lifetime;
 * - a token the platform refused (401) is forgotten and the call replayed once (by the caller);
 * - a generation counter keeps a slow, stale refresh from overwriting a newer token;
 * - a response for another `client_id` is refused; a missing `expires_in` gets a default;
 * - when the secret is refused and came from a credentials file, the file is read once more
 *   (another paw process may have rotated the secret and written the new one there);
 * - `close()` revokes the session (`DELETE /api/session`).
 */
export class TokenProvider implements BearerAuthorization {
  private cached: CachedToken | undefined;
  private inFlight: Promise<CachedToken> | undefined;
  private generation = 0;
  private storedGeneration = 0;
  private closed = false;
  private counters = { tokenRequests: 0, rejectedTokens: 0, credentialReloads: 0 };
  private readonly now: () => number;

  constructor(private readonly options: TokenProviderOptions) {
    this.now = options.now ?? Date.now;
  }

  get stats(): TokenProviderStats {
    return { ...this.counters };
  }

  async token(signal?: AbortSignal): Promise<Secret> {
    if (this.closed) throw new Error('the platform client is closed');
    const cached = this.cached;
    if (cached !== undefined && this.now() < cached.refreshAt) return cached.value;
    this.inFlight ??= this.refresh().finally(() => {
      this.inFlight = undefined;
    });
    try {
      return (await abortable(this.inFlight, signal)).value;
    } catch (error) {
      // An early refresh that failed (the platform briefly unavailable) does not fail a call
      // while the current token is still good: the next call tries to refresh again.
      if (
        !signal?.aborted &&
        cached !== undefined &&
        this.cached === cached &&
        this.now() < cached.expiresAt
      ) {
        this.options.logger.warn(
          { err: describe(error) },
          'could not refresh the access token early; using the current one until it expires',
        );
        return cached.value;
      }
      throw error;
    }
  }

  rejected(token: Secret): void {
    // Only the token that was refused is dropped: a newer one (fetched while the refused request
    // was on its way) stays.
    if (this.cached?.value === token) {
      this.counters.rejectedTokens++;
      this.cached = undefined;
      this.options.logger.debug('access token refused by the platform; a new one will be fetched');
    }
  }

  /** Revokes the current session, once. Never throws: closing must not fail a finished command. */
  async close(signal?: AbortSignal): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.inFlight?.catch(() => undefined);
    const token = this.cached;
    this.cached = undefined;
    if (token === undefined || this.now() >= token.expiresAt) return;
    try {
      await revokeSession({
        http: this.options.http,
        baseUrl: this.options.credentials.baseUrl,
        token: token.value,
        signal,
      });
    } catch (error) {
      // A 401 here means the session had already ended: nothing left to revoke.
      if (!(error instanceof AuthenticationError)) {
        this.options.logger.warn(
          { err: describe(error) },
          'could not revoke the platform session; it ends when its token expires',
        );
      }
    }
  }

  private async refresh(): Promise<CachedToken> {
    const report = (result: 'success' | 'failure'): void => {
      const observer = this.options.observer;
      if (observer?.onTokenRefresh !== undefined) {
        safelyNotify(() => observer.onTokenRefresh?.({ result }));
      }
    };
    try {
      const token = await this.refreshOnce();
      report('success');
      return token;
    } catch (error) {
      report('failure');
      throw error;
    }
  }

  private async refreshOnce(): Promise<CachedToken> {
    const generation = ++this.generation;
    const credentials = this.options.credentials.current();
    let token: CachedToken;
    try {
      token = await this.request(credentials, generation);
    } catch (error) {
      if (!isIncorrectSecret(error)) throw error;
      const reloaded = await this.options.credentials.reload();
      if (
        reloaded === undefined ||
        reloaded.clientSecret.reveal() === credentials.clientSecret.reveal()
      ) {
        throw new AuthenticationError({
          operation: error.operation,
          status: error.status,
          code: error.code,
          message:
            `the platform refused the client secret of ${credentials.clientId} from ` +
            `${this.options.credentials.description}; it may have been rotated: provide the new ` +
            'secret (or a new credentials file)',
          mayHaveTakenEffect: false,
          cause: error,
        });
      }
      this.counters.credentialReloads++;
      this.options.logger.info(
        { clientId: reloaded.clientId },
        'client secret was refused; using the rotated secret found in the credentials file',
      );
      token = await this.request(reloaded, generation);
    }
    if (!this.closed && generation > this.storedGeneration) {
      this.cached = token;
      this.storedGeneration = generation;
    }
    return this.cached ?? token;
  }

  private async request(
    credentials: ServiceAccountCredentials,
    generation: number,
  ): Promise<CachedToken> {
    this.counters.tokenRequests++;
    const issued = await requestAccessToken({
      http: this.options.http,
      credentials,
      allowedOrigin: credentials.baseUrl.origin,
      defaultLifetimeSeconds: this.options.defaultLifetimeSeconds,
      now: this.now,
    });
    const marginMs =
      Math.min(this.options.refreshMarginSeconds, issued.lifetimeSeconds * MAX_MARGIN_SHARE) * 1000;
    this.options.logger.debug(
      {
        clientId: issued.clientId,
        lifetimeSeconds: issued.lifetimeSeconds,
        defaulted: issued.defaulted,
      },
      'access token obtained',
    );
    return {
      value: issued.value,
      clientId: issued.clientId,
      expiresAt: issued.expiresAt,
      refreshAt: issued.expiresAt - marginMs,
      generation,
    };
  }
}

function isIncorrectSecret(error: unknown): error is AuthenticationError {
  return (
    error instanceof AuthenticationError && /incorrect client secret/i.test(error.platformMessage)
  );
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
