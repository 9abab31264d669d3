import { isPasswordHash } from './password-hash.js';

/** A secret of an ops credentials file and the user it stands for. */
export interface NamedSecret {
  readonly name: string;
  /** The token, or (in the users file) the password's hash. */
  readonly secret: string;
}

/** A line of a credentials file that was refused, and why (never with the line's text). */
interface RefusedLine {
  readonly line: number;
  readonly problem: string;
}

/** What a credentials file says: its credentials, and the lines refused. */
export interface ParsedCredentials {
  readonly entries: readonly NamedSecret[];
  readonly refused: readonly RefusedLine[];
}

/**
 * The shortest token accepted: shorter ones can be guessed, or are a mistake (a stray character,
 * a truncated paste). `openssl rand -hex 32` makes 64.
 */
const MIN_TOKEN_LENGTH = 16;

/** Who a token line without a name is recorded as. */
const UNNAMED_TOKEN_USER = 'bearer token';

/** A user name in the ops files: no spaces (the lines are trimmed) and no `:` (the separator). */
export function isOpsUserName(name: string): boolean {
  return /^[^:\s]+$/.test(name);
}

/**
 * The lines of a token file (also the metrics token and the proxy secret files): `name:token`,
 * whose name is recorded as the user of what the token does, or a bare `token`, recorded as
 * {@link UNNAMED_TOKEN_USER}. Blank lines and `#` comments are skipped.
 */
export function parseTokenLines(text: string): ParsedCredentials {
  return parseLines(text, (line) => {
    const colon = line.indexOf(':');
    const name = colon < 0 ? UNNAMED_TOKEN_USER : line.slice(0, colon);
    const secret = colon < 0 ? line : line.slice(colon + 1);
    if (colon >= 0 && !isOpsUserName(name)) {
      return 'a name before the `:` with a space in it, or none: write `name:token`';
    }
    if (/\s/.test(secret)) return 'a token with a space in it: write `name:token` or `token`';
    if (secret.length < MIN_TOKEN_LENGTH) {
      return `a token shorter than ${MIN_TOKEN_LENGTH} characters: make one with \`openssl rand -hex 32\``;
    }
    return { name, secret };
  });
}

/**
 * The lines of a users file: `name:<scrypt hash>`, as `paw ops hash-password --user NAME`
 * prints them. A name on two lines is refused on the second (the first would always win).
 */
export function parseUserLines(text: string): ParsedCredentials {
  const seen = new Map<string, number>();
  return parseLines(text, (line, number) => {
    const colon = line.indexOf(':');
    const name = line.slice(0, Math.max(colon, 0));
    const secret = line.slice(colon + 1);
    if (colon <= 0 || !isOpsUserName(name) || !isPasswordHash(secret)) {
      return 'not `name:<hash>`: make the line with `paw ops hash-password --user NAME`';
    }
    const earlier = seen.get(name);
    if (earlier !== undefined) return `user ${name} is already on line ${earlier}`;
    seen.set(name, number);
    return { name, secret };
  });
}

function parseLines(
  text: string,
  parseLine: (line: string, number: number) => NamedSecret | string,
): ParsedCredentials {
  const entries: NamedSecret[] = [];
  const refused: RefusedLine[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const parsed = parseLine(line, index + 1);
    if (typeof parsed === 'string') refused.push({ line: index + 1, problem: parsed });
    else entries.push(parsed);
  });
  return { entries, refused };
}
