import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startPrivateRedisServer,
  type PrivateRedisServer,
} from '../../src/redis/private-redis-server.js';
import { PawProcess } from '../testkit/paw-process.js';
import { startSimulatorKit, type SimulatorKit } from '../testkit/simulator-kit.js';

const OLD_PASSWORD = 'old-redis-pass-7c1d9a';
const NEW_PASSWORD = 'new-redis-pass-42be5f';

/**
 * The operator rotates the Redis password while `paw start` runs. Every Redis error must go
 * through paw's redacting logger, as JSON, naming the real cause (WRONGPASS) a bounded number
 * of times, and never print a command's arguments (the password is one of them).
 */
describe('a Redis password changed under a running paw', () => {
  let redis: PrivateRedisServer;
  let kit: SimulatorKit;
  let dir: string;
  let paw: PawProcess;

  beforeAll(async () => {
    redis = await startPrivateRedisServer({ extraArgs: ['--requirepass', OLD_PASSWORD] });
    kit = await startSimulatorKit({ workloads: 10 }, 'redis-password');
    dir = kit.dir;
    await mkdir(join(dir, 'jobs'));
    paw = new PawProcess(['start'], {
      cwd: dir,
      env: {
        PAW_REDIS_URL: `redis://:${OLD_PASSWORD}@127.0.0.1:${redis.port}`,
        PAW_CREDENTIALS_FILE: kit.credentialsFile,
        PAW_JOBS_DIR: join(dir, 'jobs'),
      },
    });
    await paw.waitForStderr(/paw start: ready/, 60_000);
  }, 90_000);

  afterAll(async () => {
    await paw?.stop('SIGKILL');
    await kit?.close();
    await redis?.stop();
  });

  it('logs the cause as JSON, a few times, and never the password', async () => {
    const admin = new Redis(redis.url, { password: OLD_PASSWORD, lazyConnect: true });
    await admin.connect();
    await admin.config('SET', 'requirepass', NEW_PASSWORD);
    // Drop every other connection: they reconnect, and Redis refuses the old password.
    const killed = await admin.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
    expect(Number(killed)).toBeGreaterThan(0);
    await admin.quit();
    await new Promise((resolve) => setTimeout(resolve, 8_000));

    const stderr = paw.stderr;
    expect(stderr).not.toContain(OLD_PASSWORD);
    expect(stderr).not.toContain(NEW_PASSWORD);
    const after = stderr.slice(stderr.indexOf('paw start: ready'));
    const lines = after
      .split('\n')
      .slice(1)
      .filter((line) => line.trim() !== '');
    const notJson = lines.filter((line) => !line.startsWith('{'));
    expect(notJson, notJson.slice(0, 5).join('\n')).toEqual([]);
    const redisErrors = lines
      .map((line) => JSON.parse(line) as { msg?: string; cause?: string })
      .filter((record) => /redis/i.test(record.msg ?? ''));
    expect(redisErrors.some((record) => /WRONGPASS/.test(JSON.stringify(record)))).toBe(true);
    // Once per interval per connection's purpose, not once per retry.
    expect(redisErrors.length).toBeLessThanOrEqual(12);
  });
});
