import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { OutcomeQueries } from '../../src/outcomes/outcome-queries.js';
import { FireCoordinator } from '../../src/scheduler/fire-coordinator.js';
import { jobsFolder } from '../testkit/definitions.js';
import { PawProcess, runPaw } from '../testkit/paw-process.js';
import { connectTestRedis, testRedisUrl, uniquePrefix } from '../testkit/redis-connection.js';
import { eventually } from '../testkit/eventually.js';

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
schedule: { cron: "* * * * * *", allowSubMinute: true, overlap: allow }
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

  it('two replicas catching up the same past times that a backfill fires: each time once', async () => {
    const prefix = uniquePrefix('backfill-race');
    const dir = await jobsFolder({
      'jobs.yaml': DEFINITIONS.replace('overlap: allow', 'overlap: allow, catchUp: 1h'),
    });
    const env = { PAW_REDIS_URL: testRedisUrl(), PAW_REDIS_PREFIX: prefix, PAW_JOBS_DIR: dir };
    const queries = new OutcomeQueries(redis, prefix);
    // The range is the last 1,000 seconds; the replicas were down for the last 500 of them
    // (their cursor says so) and catch those up (catchUp: 1h) under the run ids the backfill
    // gives them too. Whichever gets to a time first creates its run; the other must find it.
    const from = Math.floor(Date.now() / 1000) * 1000 - 1_000_000;
    const to = from + 999_000;
    await redis.hset(`${prefix}:scheduler:cursors`, 'every-second', from + 499_000);
    // A third replica (this test) holds the claim until both real ones are ready, then lets
    // them catch up; the backfill starts once they have created a run of the range. Both sides
    // then create some by construction (the replicas before the backfill starts, the backfill
    // the first half, which the replicas' cursor leaves alone) and race over the second half.
    // Released only "as the backfill starts", a backfill CLI that starts fast (the build) was
    // done before the replicas' next tick: none created by them, the assertion below failed.
    const held = await new FireCoordinator(redis, prefix, 60_000).claim('every-second', new Date());
    if (held.status !== 'claimed') throw new Error(`the claim was ${held.status}`);
    const replicas = [
      new PawProcess(['scheduler'], { env, cwd: dir }),
      new PawProcess(['scheduler'], { env, cwd: dir }),
    ];
    try {
      await Promise.all(replicas.map((r) => r.waitForStderr(/ready \(replica/, 60_000)));
      await held.lease.complete(undefined);
      await eventually(
        'the replicas created a run of the range',
        async () => (await redis.zcount(`${prefix}:outcomes:runs:def:every-second`, from, to)) > 0,
      );
      const backfill = runPaw(
        [
          'backfill',
          'every-second',
          '--from',
          new Date(from).toISOString(),
          '--to',
          new Date(to).toISOString(),
          '--json',
        ],
        { env, cwd: dir },
      );
      const result = await backfill;
      expect(result.code, result.stderr).toBe(0);
      const report = JSON.parse(result.stdout) as BackfillReport;
      expect(report.times).toBe(1000);
      await eventually('the replicas caught up', async () =>
        (await queries.listRuns({ definitionId: 'every-second', limit: 1 })).some(
          (run) => Date.parse(run.fireTime) > to + 1000,
        ),
      );
      const rangeIds = new Set(report.fires.map((fire) => fire.runId));
      expect(rangeIds.size).toBe(1000);
      // One run per time of the range (run ids are the members of the definition's index)...
      const indexed = await redis.zrangebyscore(
        `${prefix}:outcomes:runs:def:every-second`,
        from,
        to,
      );
      expect(indexed.filter((runId) => rangeIds.has(runId))).toHaveLength(1000);
      expect(indexed).toHaveLength(1000);
      // ...each created once: what the backfill created and what the replicas created add up.
      const backfilled = report.fires.filter((fire) => fire.result === 'enqueued').length;
      const byReplicas = replicas
        .flatMap((replica) => replica.logRecords())
        .filter(
          (record) => record['result'] === 'enqueued' && rangeIds.has(String(record['runId'])),
        ).length;
      expect(backfilled + byReplicas).toBe(1000);
      expect(report.existing).toBe(1000 - backfilled);
      // Both sides created some of them: both went through the same times.
      expect(byReplicas).toBeGreaterThan(0);
      expect(backfilled).toBeGreaterThan(0);
      // And every run's job is in the queue once (BullMQ job id = run id).
      const queue = new Queue('snapshot', { connection: redis, prefix });
      try {
        const jobs = await queue.getJobs(['waiting'], 0, 2000);
        expect(jobs.filter((job) => rangeIds.has(job.id ?? ''))).toHaveLength(1000);
      } finally {
        await queue.close();
      }
    } finally {
      await Promise.all(replicas.map((replica) => replica.stop('SIGTERM')));
    }
  }, 180_000);

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
