import type { SimulatorClock } from './clock.js';
import type { IssuedSecrets, SecretKind } from './issued-secrets.js';
import type { TokenMinter } from './signed-token.js';

/** A token just minted: its text, when it expires (clock ms) and its lifetime in real seconds. */
interface MintedToken {
  readonly token: string;
  readonly expiresAt: number;
  readonly expiresIn: number;
}

/**
 * Signed tokens of one lifetime (platform seconds, scaled by the clock), each recorded among the
 * issued secrets the moment it is minted: access tokens, OAuth tokens, cluster session tokens.
 */
export class ExpiringTokens {
  constructor(
    private readonly clock: SimulatorClock,
    private readonly minter: TokenMinter,
    private readonly secrets: IssuedSecrets,
    private readonly lifetimeSeconds: number,
  ) {}

  /** A token for `subject`, of JWT type `kind`, issued at `now`, recorded under `secretKind`. */
  mint(subject: string, kind: string, secretKind: SecretKind, now: number): MintedToken {
    const lifetime = this.clock.reportedLifetime(this.lifetimeSeconds);
    const expiresAt = now + lifetime.ms;
    const token = this.secrets.record(
      secretKind,
      this.minter.mint({ subject, issuedAtMs: now, expiresAtMs: expiresAt, kind }),
    );
    return { token, expiresAt, expiresIn: lifetime.seconds };
  }
}
