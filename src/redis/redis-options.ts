import type { ConnectionOptions } from 'node:tls';
import type { Settings } from '../config/settings-schema.js';
import { UsageError } from '../shared/usage-error.js';
import { readCappedFileSync, type FileCap } from '../shared/read-capped-file.js';

type RedisSettings = Settings['redis'];

/** The part of ioredis's options that says where Redis is and how to log in. */
export interface RedisConnectionOptions {
  host?: string;
  port?: number;
  sentinels?: { host: string; port: number }[];
  name?: string;
  username?: string;
  password?: string;
  db?: number;
  tls?: ConnectionOptions;
  sentinelUsername?: string;
  sentinelPassword?: string;
  enableTLSForSentinelMode?: boolean;
  sentinelTLS?: ConnectionOptions;
}

/** `redis+sentinel://[user:pass@]host1:26379,host2:26379/<master>[/<db>]`. */
const SENTINEL_URL =
  /^redis\+sentinel:\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/]+)\/([^/]+)(?:\/(\d+))?\/?$/;

/**
 * How to connect to Redis, from the settings: a `redis://`/`rediss://` URL, or Sentinel (a
 * `redis+sentinel://` URL, or `redis.sentinel`), with the ACL user and password from the URL
 * or the settings (never both), and TLS with the CA (and client certificate) files. TLS
 * verification is never turned off. Every problem is a UsageError naming the setting.
 */
export function redisConnectionOptions(settings: RedisSettings): RedisConnectionOptions {
  const target = parseTarget(settings);
  const username = pick(
    'the user',
    target.username,
    settings.username,
    'redis.username (PAW_REDIS_USERNAME)',
  );
  const password = pick(
    'the password',
    target.password,
    settings.password?.reveal() ??
      readSecretFile(settings.passwordFile, 'redis.passwordFile (PAW_REDIS_PASSWORD_FILE)'),
    'PAW_REDIS_PASSWORD or redis.passwordFile',
  );
  const tls = tlsOptions(settings, target.tls);
  const common: RedisConnectionOptions = {
    ...(username === undefined ? {} : { username }),
    ...(password === undefined ? {} : { password }),
    ...(target.db === undefined ? {} : { db: target.db }),
    ...(tls === undefined ? {} : { tls }),
  };
  if (target.kind === 'direct') {
    return { ...common, host: target.host, port: target.port };
  }
  const sentinelPassword =
    settings.sentinel.password?.reveal() ??
    readSecretFile(
      settings.sentinel.passwordFile,
      'redis.sentinel.passwordFile (PAW_REDIS_SENTINEL_PASSWORD_FILE)',
    );
  return {
    ...common,
    sentinels: [...target.sentinels],
    name: target.masterName,
    ...(settings.sentinel.username === undefined
      ? {}
      : { sentinelUsername: settings.sentinel.username }),
    ...(sentinelPassword === undefined ? {} : { sentinelPassword }),
    ...(tls === undefined ? {} : { enableTLSForSentinelMode: true, sentinelTLS: tls }),
  };
}

type Target =
  | {
      readonly kind: 'direct';
      readonly host: string;
      readonly port: number;
      readonly username?: string | undefined;
      readonly password?: string | undefined;
      readonly db?: number | undefined;
      readonly tls: boolean;
    }
  | {
      readonly kind: 'sentinel';
      readonly sentinels: readonly { host: string; port: number }[];
      readonly masterName: string;
      readonly username?: string | undefined;
      readonly password?: string | undefined;
      readonly db?: number | undefined;
      readonly tls: boolean;
    };

function parseTarget(settings: RedisSettings): Target {
  const { sentinel } = settings;
  const sentinelSettings = sentinel.sentinels !== undefined || sentinel.masterName !== undefined;
  if (settings.url.startsWith('redis+sentinel://')) {
    if (sentinelSettings) {
      throw new UsageError(
        'redis.url is a redis+sentinel:// URL and redis.sentinel names sentinels too: use one of them',
      );
    }
    const match = SENTINEL_URL.exec(settings.url);
    if (match === null) {
      throw new UsageError(
        'redis.url (PAW_REDIS_URL): a Sentinel URL looks like redis+sentinel://[user:pass@]host1:26379,host2:26379/<master name>[/<db>]',
      );
    }
    const sentinels = (match[3] ?? '').split(',').map((address) => hostAndPort(address, 26379));
    return {
      kind: 'sentinel',
      sentinels,
      masterName: decodeURIComponent(match[4] ?? ''),
      username: emptyAsUndefined(match[1]),
      password: emptyAsUndefined(match[2]),
      db: match[5] === undefined ? undefined : Number(match[5]),
      tls: false,
    };
  }
  let url: URL;
  try {
    url = new URL(settings.url);
  } catch {
    throw new UsageError('redis.url (PAW_REDIS_URL) is not a URL; e.g. redis://127.0.0.1:6379');
  }
  const db = url.pathname.replace(/^\//, '');
  const common = {
    username: emptyAsUndefined(decodeURIComponent(url.username)),
    password: emptyAsUndefined(decodeURIComponent(url.password)),
    db: db === '' ? undefined : Number(db),
    tls: url.protocol === 'rediss:',
  };
  if (sentinelSettings) {
    if (sentinel.sentinels === undefined || sentinel.masterName === undefined) {
      throw new UsageError(
        'redis.sentinel needs both sentinels (PAW_REDIS_SENTINELS=host:26379,...) and masterName (PAW_REDIS_MASTER_NAME)',
      );
    }
    return {
      kind: 'sentinel',
      sentinels: sentinel.sentinels,
      masterName: sentinel.masterName,
      ...common,
    };
  }
  return {
    kind: 'direct',
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port === '' ? 6379 : Number(url.port),
    ...common,
  };
}

function tlsOptions(settings: RedisSettings, fromUrl: boolean): ConnectionOptions | undefined {
  const { caFile, certFile, keyFile } = settings.tls;
  if (!fromUrl && caFile === undefined && certFile === undefined) return undefined;
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new UsageError(
      'redis.tls: mutual TLS needs both certFile (PAW_REDIS_TLS_CERT_FILE) and keyFile (PAW_REDIS_TLS_KEY_FILE)',
    );
  }
  return {
    ...(caFile === undefined
      ? {}
      : { ca: readPem(caFile, 'redis.tls.caFile (PAW_REDIS_CA_FILE)') }),
    ...(certFile === undefined
      ? {}
      : { cert: readPem(certFile, 'redis.tls.certFile (PAW_REDIS_TLS_CERT_FILE)') }),
    ...(keyFile === undefined
      ? {}
      : { key: readPem(keyFile, 'redis.tls.keyFile (PAW_REDIS_TLS_KEY_FILE)') }),
    rejectUnauthorized: true,
  };
}

function pick(
  what: string,
  fromUrl: string | undefined,
  fromSettings: string | undefined,
  setting: string,
): string | undefined {
  if (fromUrl !== undefined && fromSettings !== undefined) {
    throw new UsageError(
      `Redis ${what} is given twice, in redis.url (PAW_REDIS_URL) and in ${setting}: keep one`,
    );
  }
  return fromUrl ?? fromSettings;
}

/** A password file holds one password. */
const PASSWORD_FILE_CAP: FileCap = { maxBytes: 64 * 1024, what: 'a password file' };

/** A CA bundle of a few hundred certificates fits (Debian's whole bundle is about 220 KiB). */
const PEM_FILE_CAP: FileCap = { maxBytes: 1024 * 1024, what: 'a PEM file' };

function readSecretFile(file: string | undefined, setting: string): string | undefined {
  if (file === undefined) return undefined;
  const text = readText(file, setting, PASSWORD_FILE_CAP).trim();
  if (text === '') throw new UsageError(`${setting}: ${file} is empty`);
  return text;
}

function readPem(file: string, setting: string): string {
  const text = readText(file, setting, PEM_FILE_CAP);
  if (!text.includes('-----BEGIN')) throw new UsageError(`${setting}: ${file} is not a PEM file`);
  return text;
}

function readText(file: string, setting: string, cap: FileCap): string {
  try {
    return readCappedFileSync(file, cap);
  } catch (error) {
    if (error instanceof UsageError) throw new UsageError(`${setting}: ${error.message}`);
    throw new UsageError(
      `${setting}: ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      { cause: error },
    );
  }
}

function hostAndPort(address: string, defaultPort: number): { host: string; port: number } {
  const at = address.lastIndexOf(':');
  if (at < 0) return { host: address, port: defaultPort };
  return { host: address.slice(0, at), port: Number(address.slice(at + 1)) };
}

function emptyAsUndefined(text: string | undefined): string | undefined {
  return text === undefined || text === '' ? undefined : text;
}
