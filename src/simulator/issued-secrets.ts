import { randomBytes } from 'node:crypto';

export type SecretKind =
  'clientSecrets' | 'accessTokens' | 'sessionTokens' | 'oauthCodes' | 'oauthTokens';

/**
 * Every secret the simulator ever hands out, by kind (`GET /_sim/issued-secrets`). Tests scan
 * logs, Redis and output for them, so every secret is minted here and nowhere else.
 */
export class IssuedSecrets {
  private readonly byKind: Record<SecretKind, string[]> = {
    clientSecrets: [],
    accessTokens: [],
    sessionTokens: [],
    oauthCodes: [],
    oauthTokens: [],
  };

  /** A new random secret of `bytes` random bytes (base64url), recorded under `kind`. */
  mint(kind: SecretKind, bytes = 32): string {
    return this.record(kind, randomBytes(bytes).toString('base64url'));
  }

  /** Records a secret built elsewhere (a signed token) and returns it. */
  record(kind: SecretKind, secret: string): string {
    this.byKind[kind].push(secret);
    return secret;
  }

  snapshot(): Record<SecretKind, readonly string[]> {
    return {
      clientSecrets: [...this.byKind.clientSecrets],
      accessTokens: [...this.byKind.accessTokens],
      sessionTokens: [...this.byKind.sessionTokens],
      oauthCodes: [...this.byKind.oauthCodes],
      oauthTokens: [...this.byKind.oauthTokens],
    };
  }
}
