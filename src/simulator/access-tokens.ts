import type { Principal } from './accounts.js';
import type { SimulatorClock } from './clock.js';
import type { ExpiringTokens } from './expiring-tokens.js';

export interface AccessToken {
  readonly principal: Principal;
  readonly clientId: string;
  readonly expiresAt: number;
  revoked: boolean;
}

export type TokenCheck =
  | { readonly status: 'valid'; readonly token: AccessToken }
  | { readonly status: 'expired' | 'invalid' };

/** Platform access tokens (client credentials and OAuth): issue, check, revoke. */
export class AccessTokenStore {
  private readonly tokens = new Map<string, AccessToken>();
  issued = 0;
  revoked = 0;

  constructor(
    private readonly clock: SimulatorClock,
    private readonly minted: ExpiringTokens,
  ) {}

  /** A new bearer token; `expiresIn` is its lifetime in real seconds. */
  issue(
    principal: Principal,
    clientId: string,
    kind: 'accessTokens' | 'oauthTokens',
  ): { token: string; expiresIn: number } {
    const { token, expiresAt, expiresIn } = this.minted.mint(
      clientId,
      kind,
      kind,
      this.clock.now(),
    );
    this.tokens.set(token, { principal, clientId, expiresAt, revoked: false });
    this.issued++;
    return { token, expiresIn };
  }

  check(bearer: string): TokenCheck {
    const token = this.tokens.get(bearer);
    if (token === undefined || token.revoked) return { status: 'invalid' };
    if (this.clock.now() >= token.expiresAt) return { status: 'expired' };
    return { status: 'valid', token };
  }

  revoke(token: AccessToken): void {
    if (token.revoked) return;
    token.revoked = true;
    this.revoked++;
  }

  /** Revokes every token of a principal (its account was deleted). */
  revokeAllOf(matches: (principal: Principal) => boolean): void {
    for (const token of this.tokens.values()) if (matches(token.principal)) this.revoke(token);
  }

  /** Tokens neither expired nor revoked. */
  live(): number {
    const now = this.clock.now();
    let live = 0;
    for (const token of this.tokens.values()) if (!token.revoked && now < token.expiresAt) live++;
    return live;
  }
}
