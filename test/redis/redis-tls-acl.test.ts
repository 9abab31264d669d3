import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/config/load-settings.js';
import { findFreePort } from '../../src/shared/free-port.js';
import { connectRedis, createRedisConnection } from '../../src/redis/redis-connection.js';
import {
  startPrivateRedisServer,
  type PrivateRedisServer,
} from '../../src/redis/private-redis-server.js';

const run = promisify(execFile);
const USER_PASSWORD = 'acl-user-pass-19fe2c';

/**
 * Redis over TLS with a CA file paw is told about, and an ACL user: a real redis-server with a
 * certificate signed by a CA made here. Verification stays on; every failure names its cause.
 */
describe('Redis with TLS and an ACL user', () => {
  let dir: string;
  let server: PrivateRedisServer;
  let tlsPort: number;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paw-redis-tls-'));
    const openssl = (...args: string[]) => run('openssl', args, { cwd: dir });
    await openssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
      '-days',
      '2',
      '-subj',
      '/CN=paw test CA',
    );
    await openssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'server.key',
      '-out',
      'server.csr',
      '-subj',
      '/CN=127.0.0.1',
    );
    await writeFile(join(dir, 'ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
    await openssl(
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.crt',
      '-days',
      '2',
      '-extfile',
      'ext',
    );
    // Another CA, which signed nothing the server has.
    await openssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'other.key',
      '-out',
      'other.crt',
      '-days',
      '2',
      '-subj',
      '/CN=someone else',
    );
    tlsPort = await findFreePort();
    server = await startPrivateRedisServer({
      extraArgs: [
        '--tls-port',
        String(tlsPort),
        '--tls-cert-file',
        join(dir, 'server.crt'),
        '--tls-key-file',
        join(dir, 'server.key'),
        '--tls-ca-cert-file',
        join(dir, 'ca.crt'),
        '--tls-auth-clients',
        'no',
      ],
    });
    const admin = new Redis(server.url);
    await admin.call('ACL', 'SETUSER', 'paw', 'on', `>${USER_PASSWORD}`, '~*', '&*', '+@all');
    await admin.quit();
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const connect = async (env: Record<string, string>) => {
    const { settings } = await loadSettings({ env, cwd: dir });
    const redis = createRedisConnection(settings.redis, 'command');
    try {
      await connectRedis(redis, settings.redis.url);
      return await redis.ping();
    } finally {
      redis.disconnect();
    }
  };

  it('connects over TLS with the CA file, as the ACL user, from settings or the URL', async () => {
    expect(
      await connect({
        PAW_REDIS_URL: `rediss://127.0.0.1:${tlsPort}`,
        PAW_REDIS_CA_FILE: join(dir, 'ca.crt'),
        PAW_REDIS_USERNAME: 'paw',
        PAW_REDIS_PASSWORD: USER_PASSWORD,
      }),
    ).toBe('PONG');
    await writeFile(join(dir, 'password'), `${USER_PASSWORD}\n`, { mode: 0o600 });
    expect(
      await connect({
        PAW_REDIS_URL: `rediss://paw@127.0.0.1:${tlsPort}`,
        PAW_REDIS_CA_FILE: join(dir, 'ca.crt'),
        PAW_REDIS_PASSWORD_FILE: join(dir, 'password'),
      }),
    ).toBe('PONG');
  });

  it('names the cause: an untrusted certificate, a wrong password, a refused connection', async () => {
    await expect(
      connect({
        PAW_REDIS_URL: `rediss://127.0.0.1:${tlsPort}`,
        PAW_REDIS_CA_FILE: join(dir, 'other.crt'),
      }),
    ).rejects.toThrow(/TLS: certificate untrusted/);
    const wrong = connect({
      PAW_REDIS_URL: `rediss://127.0.0.1:${tlsPort}`,
      PAW_REDIS_CA_FILE: join(dir, 'ca.crt'),
      PAW_REDIS_USERNAME: 'paw',
      PAW_REDIS_PASSWORD: 'not-the-password',
    });
    await expect(wrong).rejects.toThrow(/WRONGPASS/);
    await expect(wrong).rejects.not.toThrow(/not-the-password/);
    const closed = await findFreePort();
    await expect(connect({ PAW_REDIS_URL: `redis://127.0.0.1:${closed}` })).rejects.toThrow(
      /connection refused \(ECONNREFUSED\)/,
    );
  });

  it('refuses contradictory or unreadable settings, naming them', async () => {
    await expect(
      connect({
        PAW_REDIS_URL: `redis://:inurl@127.0.0.1:${server.port}`,
        PAW_REDIS_PASSWORD: 'x',
      }),
    ).rejects.toThrow(
      /password is given twice, in redis\.url \(PAW_REDIS_URL\) and in PAW_REDIS_PASSWORD/,
    );
    await expect(
      connect({
        PAW_REDIS_URL: `rediss://127.0.0.1:${tlsPort}`,
        PAW_REDIS_CA_FILE: join(dir, 'missing.crt'),
      }),
    ).rejects.toThrow(
      /redis\.tls\.caFile \(PAW_REDIS_CA_FILE\): .*missing\.crt cannot be read \(ENOENT\)/,
    );
    await expect(connect({ PAW_REDIS_SENTINELS: '127.0.0.1:26379' })).rejects.toThrow(
      /redis\.sentinel needs both sentinels .* and masterName/,
    );
  });
});
