import { createHmac, randomBytes, randomUUID } from 'node:crypto';

/**
 * Mints tokens shaped like the platform's (JWTs, HS256), so that a client that peeks at `exp`
 * sees what it would see in production. The simulator never trusts a token's content: a token
 * is valid only if its store knows it.
 */
export class TokenMinter {
  private readonly key = randomBytes(32);

  constructor(private readonly issuer: () => string) {}

  mint(claims: { subject: string; issuedAtMs: number; expiresAtMs: number; kind: string }): string {
    const header = encode({ alg: 'HS256', typ: 'JWT' });
    const payload = encode({
      iss: this.issuer(),
      sub: claims.subject,
      iat: Math.floor(claims.issuedAtMs / 1000),
      exp: Math.floor(claims.expiresAtMs / 1000),
      jti: randomUUID(),
      typ: claims.kind,
    });
    const signature = createHmac('sha256', this.key)
      .update(`${header}.${payload}`)
      .digest('base64url');
    return `${header}.${payload}.${signature}`;
  }
}

function encode(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
