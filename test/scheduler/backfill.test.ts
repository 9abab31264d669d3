import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutcomeQueries } from '../../src/outcomes/outcome-queries.js';
import { jobsFolder } from '../support/definitions.js';
import { PawProcess, runPaw } from '../support/paw-process.js';
import { connectTestRedis, testRedisUrl, uniquePrefix } from '../support/redis-connection.js';
import { eventually } from '../support/eventually.js';

let redis: Redis;
beforeAll(() => {
  redis = connectTestRedis();
});
afterAll(async () => {
  await redis.quit();
});

const DEFINITIONS = `
id: every-second
kind: snapshot
schedule: { cron: "* * * * * *", overlap: allow }
targets: { types: [VSPHERE_VM] }
keepForever: true
`;

interface BackfillReport {
  times: number;
  enqueued: number;
  existing: number;
  fires: { fireTime: string; runId: string; result: string }[];
}

describe('paw backfill (real processes, a live scheduler)', () => {
  it('fires each past time once, racing the live scheduler, and finds them all the second time', async () => {
    const prefix = uniquePrefix('backfill');
    const dir = await jobsFolder({ 'jobs.yaml': DEFINITIONS });
    const env = { PAW_REDIS_URL: testRedisUrl(), PAW_REDIS_PREFIX: prefix, PAW_JOBS_DIR: dir };
    const queries = new OutcomeQueries(redis, prefix);
    const runs = () => queries.listRuns({ definitionId: 'every-second', limit: 1000 });
    // The scheduler starts 8 s after the range does: the first times have no run.
    const from = new Date(Math.floor(Date.now() / 1000) * 1000 - 2000);
    await new Promise((resolve) => setTimeout(resolve, 6000));
    const scheduler = new PawProcess(['scheduler'], { env, cwd: dir });
    try {
      await scheduler.waitForStderr(/ready \(replica/, 60_000);
      await eventually('three scheduled fires', async () => (await runs()).length >= 3);
      // To now, while the scheduler keeps firing the same times.
      const first = await runPaw(
        ['backfill', 'every-second', '--from', from.toISOString(), '--json'],
        { env, cwd: dir },
      );
      expect(first.code, first.stderr).toBe(0);
      const report = JSON.parse(first.stdout) as BackfillReport;
      expect(report.times).toBeGreaterThan(8);
      expect(report.enqueued).toBeGreaterThan(3); // the seconds before the scheduler started
      expect(report.existing).toBeGreaterThan(0); // the ones it had fired already
      expect(report.enqueued + report.existing).toBe(report.times);
      const lastTime = report.fires.at(-1)?.fireTime ?? '';

      const again = await runPaw(
        ['backfill', 'every-second', '--from', from.toISOString(), '--to', lastTime, '--json'],
        { env, cwd: dir },
      );
      expect(JSON.parse(again.stdout)).toMatchObject({
        times: report.times,
        enqueued: 0,
        existing: report.times,
      });

      // One run per second from the start of the range on: none lost, none twice.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const seconds = (await runs())
        .map((run) => Date.parse(run.fireTime))
        .filter((time) => time >= from.getTime())
        .sort((a, b) => a - b);
      expect(new Set(seconds).size).toBe(seconds.length);
      expect(seconds[0]).toBe(from.getTime());
      for (let index = 1; index < seconds.length; index++) {
        expect(seconds[index]! - seconds[index - 1]!).toBe(1000);
      }
    } finally {
      await scheduler.stop('SIGTERM');
    }
  }, 120_000);

  it('refuses a range into the future or too wide, with exit 2', async () => {
    const dir = await jobsFolder({ 'jobs.yaml': DEFINITIONS });
    const env = {
      PAW_REDIS_URL: testRedisUrl(),
      PAW_REDIS_PREFIX: uniquePrefix('backfill'),
      PAW_JOBS_DIR: dir,
    };
    const future = await runPaw(
      [
        'backfill',
        'every-second',
        '--from',
        '1h',
        '--to',
        new Date(Date.now() + 3_600_000).toISOString(),
      ],
      { env, cwd: dir },
    );
    expect(future.code).toBe(2);
    expect(future.stderr).toMatch(/the range must end now or before/);
    const wide = await runPaw(['backfill', 'every-second', '--from', '1d'], { env, cwd: dir });
    expect(wide.code).toBe(2);
    expect(wide.stderr).toMatch(
      /86\d{3} fire times in that range, more than 1000: backfill a narrower one/,
    );
  });
});
