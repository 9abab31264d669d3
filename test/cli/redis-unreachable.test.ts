import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../src/shared/free-port.js';
import { startLoneSentinel, type LoneSentinel } from '../testkit/sentinel-redis.js';
import { runPaw, type PawResult } from '../testkit/paw-process.js';

/** Longer than any Redis connection of a one-shot command may take: past it, the command hangs. */
const HANG_MS = 45_000;

/**
 * A one-shot command (`paw runs`) whose Redis cannot be reached through Sentinel ends with a
 * message naming what it tried, as a real process: sentinels that are down (ports with nothing
 * listening) and a real sentinel that does not know the master name.
 */
describe('a one-shot command whose Redis is behind unreachable sentinels', () => {
  let dir: string;
  let lone: LoneSentinel;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paw-redis-unreachable-'));
    lone = await startLoneSentinel();
  });
  afterAll(async () => {
    await lone?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** `paw runs` with `env`, killed if it is still running after {@link HANG_MS}. */
  async function pawRuns(env: Record<string, string>): Promise<PawResult & { hung: boolean }> {
    let hung = false;
    const result = await runPaw(['runs'], {
      cwd: dir,
      env,
      onSpawn: (child) => {
        const timer = setTimeout(() => {
          hung = true;
          child.kill('SIGKILL');
        }, HANG_MS);
        child.once('exit', () => clearTimeout(timer));
      },
    });
    return { ...result, hung };
  }

  it('fails, naming each sentinel it tried, when every sentinel is down', async () => {
    const ports = [await findFreePort(), await findFreePort()];
    const result = await pawRuns({
      PAW_REDIS_URL: `redis+sentinel://127.0.0.1:${ports[0]},127.0.0.1:${ports[1]}/paw-primary`,
    });
    expect(result.hung, 'paw runs was still running after 45 s').toBe(false);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/cannot reach Redis through the sentinels/);
    expect(result.stderr).toContain(`127.0.0.1:${ports[0]}`);
    expect(result.stderr).toContain(`127.0.0.1:${ports[1]}`);
    expect(result.stderr).toMatch(/connection refused/);
    expect(result.stderr).toContain('paw-primary');
  }, 60_000);

  it('fails, saying the sentinel does not know the master name, when it is wrong', async () => {
    const result = await pawRuns({
      PAW_REDIS_URL: `redis+sentinel://${lone.address}/no-such-master`,
    });
    expect(result.hung, 'paw runs was still running after 45 s').toBe(false);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(lone.address);
    expect(result.stderr).toMatch(/does not know the master name no-such-master/);
  }, 60_000);

  it('refuses a CA file that is a device (/dev/zero, which never ends), naming the setting and what it is', async () => {
    const result = await pawRuns({
      PAW_REDIS_URL: 'rediss://127.0.0.1:6379',
      PAW_REDIS_CA_FILE: '/dev/zero',
    });
    expect(result.hung, 'paw runs was still running after 45 s').toBe(false);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/redis\.tls\.caFile \(PAW_REDIS_CA_FILE\)/);
    expect(result.stderr).toMatch(/\/dev\/zero is a character device, not a regular file/);
  }, 60_000);
});
