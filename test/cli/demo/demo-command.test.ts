import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mkdtemp, rm } from 'node:fs/promises';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { demoRedis } from '../../../src/cli/demo/demo-redis.js';
import { loadSettings } from '../../../src/config/load-settings.js';
import { runPaw } from '../../testkit/paw-process.js';
import { testRedisUrl } from '../../testkit/redis-connection.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `npm run demo` as a new user runs it (shortened with --for), as a real process. */
describe('paw demo', () => {
  it('runs the three kinds end to end, exits 0, reports every run, and leaves nothing behind', async () => {
    // As a user runs it: the dashboard on 8090 (a free port when 8090 is taken).
    const result = await runPaw(['demo', '--for', '15s', '--workloads', '200', '--json'], {
      cwd: tmpdir(),
      env: { PAW_HTTP_PORT: '8090' },
    });
    expect(result.code, result.stderr).toBe(0);

    const report = JSON.parse(result.stdout) as {
      ok: boolean;
      checks: { ok: boolean; what: string }[];
      runs: { run: { kind: string; status: string }; items: unknown[] }[];
      dashboardUrl?: string;
    };
    expect(report.ok).toBe(true);
    expect(report.checks.filter((check) => !check.ok)).toEqual([]);
    expect(new Set(report.runs.map(({ run }) => run.kind))).toEqual(
      new Set(['snapshot', 'sla-window', 'rotate-secret']),
    );
    const snapshot = report.runs.find(({ run }) => run.kind === 'snapshot');
    expect(snapshot?.items.length).toBeGreaterThan(100);
    expect(report.dashboardUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    // Progress and the dashboard's address went to standard error while it ran.
    expect(result.stderr).toContain('paw demo: dashboard: http://127.0.0.1:');
    expect(result.stderr).toMatch(/fired +demo-snapshots@/);
    expect(result.stderr).toMatch(/succeeded demo-rotation@/);

    // Nothing left: the private redis-server is gone, the working folder removed.
    const pid = Number(/private redis-server on \S+ \(pid (\d+)\)/.exec(result.stderr)?.[1]);
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid)).toBe(false);
    const folder = /working folder (\S+) \(removed/.exec(result.stderr)?.[1] ?? '';
    expect(folder).toMatch(/paw-demo-/);
    expect(existsSync(folder)).toBe(false);
  }, 180_000);

  it('with PAW_REDIS_URL, keeps to a prefix of its own and deletes its keys afterwards', async () => {
    const given = await demoRedis(testRedisUrl());
    expect(given.source).toBe('given');
    const redis = new Redis(testRedisUrl());
    try {
      await redis.set(`${given.prefix}:outcomes:run:x`, '1');
      await redis.set(`${given.prefix}:snapshot:meta`, '1');
      await redis.set('someone-else:key', 'kept');
      await given.release(undefined);
      expect(await redis.keys(`${given.prefix}:*`)).toHaveLength(2);
      const { settings } = await loadSettings({
        cwd: tmpdir(),
        env: { PAW_REDIS_URL: testRedisUrl() },
      });
      await given.release(settings.redis);
      expect(await redis.keys(`${given.prefix}:*`)).toEqual([]);
      expect(await redis.get('someone-else:key')).toBe('kept');
    } finally {
      await redis.del('someone-else:key');
      redis.disconnect();
    }
  });

  it('--help says what it runs, what it leaves behind and what its exit codes mean', async () => {
    const result = await runPaw(['demo', '--help'], { cwd: tmpdir(), env: {} });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/--for <duration>/);
    expect(result.stdout).toMatch(/Nothing is left behind/);
    expect(result.stdout).toMatch(/Exit codes: 0 everything behaved/);
    const bad = await runPaw(['demo', '--for', '5s'], { cwd: tmpdir(), env: {} });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/at least 15s/);
  });

  it('without redis-server or PAW_REDIS_URL, says how to get Redis and exits 2', async () => {
    // A PATH with nothing on it: no redis-server to start.
    const emptyPath = await mkdtemp(join(tmpdir(), 'paw-empty-path-'));
    const result = await runPaw(['demo', '--for', '15s'], {
      cwd: tmpdir(),
      env: { PATH: emptyPath },
    });
    await rm(emptyPath, { recursive: true, force: true });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /the demo needs Redis: install redis-server .*or set PAW_REDIS_URL/,
    );
  });
});
