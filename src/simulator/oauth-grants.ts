import type { SimulatorClock } from './clock.js';
import type { IssuedSecrets } from './issued-secrets.js';

export interface AuthorizationCode {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly scope: string;
  readonly userId: string;
  readonly expiresAt: number;
  used: boolean;
}

/** Platform seconds an authorization code stays valid (RFC 6749 recommends at most 10 minutes). */
const CODE_LIFETIME_SECONDS = 600;

/** Authorization codes of the OAuth authorization-code flow: issued once, redeemed once. */
export class AuthorizationCodes {
  private readonly codes = new Map<string, AuthorizationCode>();

  constructor(
    private readonly clock: SimulatorClock,
    private readonly secrets: IssuedSecrets,
  ) {}

  issue(grant: Omit<AuthorizationCode, 'expiresAt' | 'used'>): string {
    const code = this.secrets.mint('oauthCodes', 24);
    const expiresAt = this.clock.now() + this.clock.reportedLifetime(CODE_LIFETIME_SECONDS).ms;
    this.codes.set(code, { ...grant, expiresAt, used: false });
    return code;
  }

  /** The grant behind a code that is known, unused and unexpired; undefined otherwise. */
  redeemable(code: string): AuthorizationCode | undefined {
    const grant = this.codes.get(code);
    if (grant === undefined || grant.used || this.clock.now() >= grant.expiresAt) return undefined;
    return grant;
  }
}
