import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/config/load-settings.js';

async function configDirWith(yaml: string | undefined): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'paw-config-'));
  await mkdir(join(root, 'config'));
  if (yaml !== undefined) await writeFile(join(root, 'config', 'paw.yaml'), yaml);
  return root;
}

describe('scheduler and queue settings', () => {
  it('have documented defaults', async () => {
    const { settings } = await loadSettings({ env: {}, cwd: await configDirWith(undefined) });
    expect(settings.scheduler).toEqual({
      leaseMs: 2_500,
      misfireGraceMs: 60_000,
      maxMissedRecorded: 100,
    });
    expect(settings.outcomes.trimIntervalMinutes).toBe(60);
    expect(settings.queues).toMatchObject({
      snapshot: { name: 'snapshot', concurrency: 20 },
      slaWindow: { name: 'sla-window', concurrency: 5 },
      rotateSecret: { name: 'rotate-secret' },
      attempts: 5,
      backoff: { baseMs: 2000, maxMs: 300_000 },
      keepCompleted: { ageSeconds: 86_400, count: 0 },
      keepFailed: { ageSeconds: 604_800, count: 10_000 },
    });
  });

  it('take PAW_* overrides and file values', async () => {
    const cwd = await configDirWith(
      'queues:\n  snapshot:\n    concurrency: 50\n    globalConcurrency: 200\n',
    );
    const { settings } = await loadSettings({
      env: {
        PAW_SCHEDULER_LEASE_MS: '2000',
        PAW_SCHEDULER_MISFIRE_GRACE_MS: '500',
        PAW_QUEUE_ATTEMPTS: '3',
        PAW_OUTCOME_TRIM_INTERVAL_MINUTES: '5',
      },
      cwd,
    });
    expect(settings.scheduler.leaseMs).toBe(2000);
    expect(settings.scheduler.misfireGraceMs).toBe(500);
    expect(settings.queues.attempts).toBe(3);
    expect(settings.outcomes.trimIntervalMinutes).toBe(5);
    expect(settings.queues.snapshot).toEqual({
      name: 'snapshot',
      concurrency: 50,
      globalConcurrency: 200,
    });
  });

  it('refuse queue names that collide with each other or with paw keys, and rotation concurrency', async () => {
    const load = async (yaml: string): Promise<Error> =>
      loadSettings({ env: {}, cwd: await configDirWith(yaml) }).then(
        () => new Error('loaded without an error'),
        (error: unknown) => error as Error,
      );
    expect((await load('queues:\n  slaWindow:\n    name: outcomes\n')).message).toMatch(
      /paw\.yaml:3:11: queues\.slaWindow\.name: is reserved/,
    );
    // The paused list of a queue named `schedules` is the key of paw's schedule pauses.
    expect((await load('queues:\n  snapshot:\n    name: schedules\n')).message).toMatch(
      /queues\.snapshot\.name: is reserved/,
    );
    expect((await load('queues:\n  slaWindow:\n    name: snapshot\n')).message).toMatch(
      /each kind needs its own queue/,
    );
    expect((await load('queues:\n  snapshot:\n    name: "a:b"\n')).message).toMatch(/no ":"/);
    expect((await load('queues:\n  rotateSecret:\n    concurrency: 4\n')).message).toMatch(
      /queues\.rotateSecret.*concurrency/,
    );
  });
});
