import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPaw } from '../../testkit/paw-process.js';
import { testRedisUrl } from '../../testkit/redis-connection.js';

describe('paw worker: usage', () => {
  it('refuses an unknown kind with exit code 2, naming the kinds and the likely one', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'paw-worker-cli-'));
    const result = await runPaw(['worker', '--kinds', 'snapshots'], {
      cwd,
      env: { PAW_REDIS_URL: testRedisUrl() },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /unknown job kind "snapshots" \(did you mean "snapshot"\?\); the kinds are snapshot, sla-window, rotate-secret/,
    );
  });

  it('fails with exit code 2 and says how to give credentials when there are none', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'paw-worker-cli-'));
    const result = await runPaw(['worker'], { cwd, env: { PAW_REDIS_URL: testRedisUrl() } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/PAW_CREDENTIALS_FILE/);
  });
});
