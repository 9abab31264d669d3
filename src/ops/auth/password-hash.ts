import {
  randomBytes,
  scrypt as scryptCallback,
  timingSafeEqual,
  type ScryptOptions,
} from 'node:crypto';

/** Node's scrypt, as a promise (the options overload is not what `promisify` picks). */
function scrypt(
  password: string,
  salt: Buffer,
  length: number,
  options: ScryptOptions,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCallback(password, salt, length, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/**
 * scrypt's cost: N = 2^15, r = 8, p = 1, 32 MiB and tens of milliseconds a hash: slow enough
 * against guessing a strong password offline, bounded for a server (which caches a user's
 * verified credential, see ops-access.ts).
 */
const N = 32_768;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
/** scrypt needs 128 · N · r bytes; this leaves room. */
const MAX_MEMORY = 64 * 1024 * 1024;

/**
 * A password hash for the ops server's users file: `$scrypt$N=32768,r=8,p=1$<salt>$<key>`
 * (base64), from node:crypto alone (no native add-on to build).
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_LENGTH, { N, r: R, p: P, maxmem: MAX_MEMORY });
  return `$scrypt$N=${N},r=${R},p=${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** The form {@link hashPassword} writes: its cost, its salt and its key. */
const HASH_FORM = /^\$scrypt\$N=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/;

/** Whether `hash` is a hash paw can check a password against. */
export function isPasswordHash(hash: string): boolean {
  return HASH_FORM.test(hash);
}

/** Whether `password` matches `hash` (in constant time); false for a hash paw cannot read. */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  const match = HASH_FORM.exec(hash);
  if (match === null) return false;
  const [, n, r, p, salt, key] = match;
  const expected = Buffer.from(key ?? '', 'base64');
  if (expected.length === 0) return false;
  const actual = await scrypt(password, Buffer.from(salt ?? '', 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: MAX_MEMORY,
  }).catch(() => undefined);
  return actual !== undefined && timingSafeEqual(actual, expected);
}
