import { simulatorControl } from './simulator-kit.js';
/**
 * Every secret the simulator issued (`GET /_sim/issued-secrets`: client secrets, access tokens,
 * session tokens, OAuth codes and tokens), with the signature part of each signed token too, so
 * that a token cut in pieces is still found.
 */
export async function issuedSecrets(simBaseUrl: string): Promise<string[]> {
  const byKind = (await simulatorControl(simBaseUrl, 'GET', '/_sim/issued-secrets')) as Record<
    string,
    string[]
  >;
  const secrets = new Set<string>();
  for (const list of Object.values(byKind)) {
    for (const secret of list) {
      secrets.add(secret);
      const signature = secret.split('.').at(-1);
      if (signature !== undefined && signature.length >= 20) secrets.add(signature);
    }
  }
  return [...secrets];
}

/** The secrets that occur in `text` (each shortened, so a failing test does not print it whole). */
export function leakedSecrets(text: string, secrets: readonly string[]): string[] {
  return secrets
    .filter((secret) => text.includes(secret))
    .map((secret) => `${secret.slice(0, 6)}…`);
}
