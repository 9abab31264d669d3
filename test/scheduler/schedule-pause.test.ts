import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutcomeQueries } from '../../src/outcomes/outcome-queries.js';
import { FireCoordinator } from '../../src/scheduler/fire-coordinator.js';
import type { RunRecord } from '../../src/outcomes/outcome-records.js';
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

/** Fires every second; no worker runs, so every run stays queued (or is skipped). */
const DEFINITIONS = `
id: every-second
kind: snapshot
schedule: { cron: "* * * * * *", allowSubMinute: true, overlap: allow }
targets: { types: [VSPHERE_VM] }
keepForever: true
`;

describe('paw schedules pause / unpause with two scheduler replicas (real processes)', () => {
  it('records fires during a pause as skipped (paused), once each, and fires again after it', async () => {
    const prefix = uniquePrefix('pause');
    const dir = await jobsFolder({ 'jobs.yaml': DEFINITIONS });
    const env = { PAW_REDIS_URL: testRedisUrl(), PAW_REDIS_PREFIX: prefix, PAW_JOBS_DIR: dir };
    const paw = (args: string[]) => runPaw(args, { env, cwd: dir });
    const queries = new OutcomeQueries(redis, prefix);
    const runs = async (): Promise<RunRecord[]> =>
      queries.listRuns({ definitionId: 'every-second', limit: 1000 });
    const replicas = [
      new PawProcess(['scheduler'], { env, cwd: dir }),
      new PawProcess(['scheduler'], { env, cwd: dir }),
    ];
    try {
      await Promise.all(replicas.map((r) => r.waitForStderr(/ready \(replica/, 60_000)));
      await eventually('two fires', async () => (await runs()).length >= 2);

      const paused = await paw([
        'schedules',
        'pause',
        'every-second',
        '--reason',
        'change freeze',
        '--by',
        'alice',
        '--json',
      ]);
      expect(paused.code, paused.stderr).toBe(0);
      const pausedAt = Date.now();
      expect(JSON.parse(paused.stdout)).toMatchObject({
        id: 'every-second',
        paused: true,
        changed: true,
        pause: { by: 'alice', reason: 'change freeze' },
      });
      // Idempotent: the first pause stays on record.
      const again = await paw([
        'schedules',
        'pause',
        'every-second',
        '--reason',
        'other',
        '--json',
      ]);
      expect(JSON.parse(again.stdout)).toMatchObject({ changed: false, pause: { by: 'alice' } });
      const listed = JSON.parse((await paw(['schedules', '--json'])).stdout) as {
        id: string;
        paused: boolean | null;
      }[];
      expect(listed).toEqual([expect.objectContaining({ id: 'every-second', paused: true })]);

      await eventually(
        'three paused fires',
        async () => (await runs()).filter((run) => run.status === 'skipped').length >= 3,
      );
      const unpaused = await paw(['schedules', 'unpause', 'every-second', '--json']);
      expect(JSON.parse(unpaused.stdout)).toMatchObject({ paused: false, changed: true });
      const unpausedAt = Date.now();
      const notAgain = await paw(['schedules', 'unpause', 'every-second', '--json']);
      expect(JSON.parse(notAgain.stdout)).toMatchObject({ changed: false });

      // --until: the pause ends by itself.
      await eventually('a fire after the unpause', async () =>
        (await runs()).some(
          (run) => Date.parse(run.fireTime) > unpausedAt + 1000 && run.status === 'queued',
        ),
      );
      const timed = await paw([
        'schedules',
        'pause',
        'every-second',
        '--reason',
        'short',
        '--until',
        '2s',
      ]);
      expect(timed.code, timed.stderr).toBe(0);
      const timedAt = Date.now();
      await eventually('a fire after the timed pause ended', async () =>
        (await runs()).some(
          (run) => Date.parse(run.fireTime) > timedAt + 3500 && run.status === 'queued',
        ),
      );

      const all = (await runs()).sort((a, b) => Date.parse(a.fireTime) - Date.parse(b.fireTime));
      // One run per second, from the first to the last: no fire lost, none recorded twice,
      // including those handled while the pause was being written.
      const seconds = all.map((run) => Date.parse(run.fireTime) / 1000);
      expect(new Set(seconds).size).toBe(seconds.length);
      for (let index = 1; index < seconds.length; index++) {
        expect(seconds[index]! - seconds[index - 1]!, `after ${all[index - 1]?.fireTime}`).toBe(1);
      }
      for (const run of all) {
        const at = Date.parse(run.fireTime);
        if (at > pausedAt + 1000 && at < unpausedAt - 1000) {
          expect(run, run.fireTime).toMatchObject({
            status: 'skipped',
            reason: expect.stringMatching(/^paused by alice at .*: change freeze$/) as unknown,
          });
        }
        if (run.status === 'skipped') expect(run.reason).toMatch(/^paused by /);
      }
      expect(all.some((run) => run.reason?.includes(': short (until ') ?? false)).toBe(true);
      // Each replica logged what it skipped as paused; neither enqueued during the pause.
      const skippedLogs = replicas.map((r) => (r.stderr.match(/"result":"paused"/g) ?? []).length);
      expect(skippedLogs.reduce((sum, count) => sum + count, 0)).toBe(
        all.filter((run) => run.status === 'skipped').length,
      );
      // The actions are on record, with who did them.
      const actions = await redis.xrange(`${prefix}:ops:actions`, '-', '+');
      const summary = actions.map(([, fields]) => {
        const record: Record<string, string> = {};
        for (let i = 0; i + 1 < fields.length; i += 2)
          record[fields[i] ?? ''] = fields[i + 1] ?? '';
        return `${record['user']} ${record['action']} ${record['outcome']}`;
      });
      expect(summary.slice(0, 2)).toEqual([
        'alice pause schedule done',
        expect.stringMatching(/ pause schedule no change$/),
      ]);
    } finally {
      await Promise.all(replicas.map((replica) => replica.stop('SIGTERM')));
    }
  }, 120_000);

  it('a pause issued while a fire is being claimed: the replica that fires it honours the pause', async () => {
    const prefix = uniquePrefix('pause-claim');
    const dir = await jobsFolder({ 'jobs.yaml': DEFINITIONS });
    const env = { PAW_REDIS_URL: testRedisUrl(), PAW_REDIS_PREFIX: prefix, PAW_JOBS_DIR: dir };
    const paw = (args: string[]) => runPaw(args, { env, cwd: dir });
    const queries = new OutcomeQueries(redis, prefix);
    const byFireTime = async (): Promise<RunRecord[]> =>
      (await queries.listRuns({ definitionId: 'every-second', limit: 1000 })).sort(
        (a, b) => Date.parse(a.fireTime) - Date.parse(b.fireTime),
      );
    const replicas = [
      new PawProcess(['scheduler'], { env, cwd: dir }),
      new PawProcess(['scheduler'], { env, cwd: dir }),
    ];
    // A third replica, this test: it claims the definition's due fires and is slow to fire
    // them, so the pause below arrives between the claim and the fire.
    const claimer = new FireCoordinator(redis, prefix, 2000);
    let renew: NodeJS.Timeout | undefined;
    try {
      await Promise.all(replicas.map((r) => r.waitForStderr(/ready \(replica/, 60_000)));
      await eventually('two fires', async () => (await byFireTime()).length >= 2);
      await eventually(
        'the claim',
        async () => (await claimer.claim('every-second', new Date())).status === 'claimed',
        { intervalMs: 20 },
      );
      const claimedAt = Date.now();
      renew = setInterval(() => void claimer.claim('every-second', new Date()), 300);
      // Fires come due while the claim is held: nobody handles them yet.
      await new Promise((resolve) => setTimeout(resolve, 4000));
      const pauseIssuedAt = Date.now();
      const paused = await paw(['schedules', 'pause', 'every-second', '--reason', 'freeze']);
      expect(paused.code, paused.stderr).toBe(0);
      const pausedAt = Date.now();
      // The claimer stops renewing (it died holding the claim): a replica takes the fires over
      // once the claim expires, after the pause was written.
      clearInterval(renew);
      renew = undefined;
      await eventually('the fires due during the claim, handled', async () =>
        (await byFireTime()).some((run) => Date.parse(run.fireTime) > pausedAt + 1000),
      );

      const runs = await byFireTime();
      const seconds = runs.map((run) => Date.parse(run.fireTime) / 1000);
      expect(new Set(seconds).size).toBe(seconds.length);
      for (let index = 1; index < seconds.length; index++) {
        expect(seconds[index]! - seconds[index - 1]!, `after ${runs[index - 1]?.fireTime}`).toBe(1);
      }
      // Due after the claim and before the pause was even issued, fired after it: skipped.
      const dueBeforePause = runs.filter((run) => {
        const at = Date.parse(run.fireTime);
        return at > claimedAt + 1000 && at < pauseIssuedAt;
      });
      expect(dueBeforePause.length).toBeGreaterThanOrEqual(2);
      for (const run of runs.filter((run) => Date.parse(run.fireTime) > claimedAt + 1000)) {
        expect(run, run.fireTime).toMatchObject({
          status: 'skipped',
          reason: expect.stringMatching(/^paused by .*: freeze$/) as unknown,
        });
      }
      // Nothing of the claimed fires reached the queue.
      const queued = runs.filter((run) => run.status === 'queued').map((run) => run.fireTime);
      expect(queued.every((fireTime) => Date.parse(fireTime) <= claimedAt + 1000)).toBe(true);
    } finally {
      if (renew !== undefined) clearInterval(renew);
      await Promise.all(replicas.map((replica) => replica.stop('SIGTERM')));
    }
  }, 120_000);

  it('refuses an unknown id with the closest one, exit 2, and a pause without a reason', async () => {
    const dir = await jobsFolder({ 'jobs.yaml': DEFINITIONS });
    const env = {
      PAW_REDIS_URL: testRedisUrl(),
      PAW_REDIS_PREFIX: uniquePrefix('pause'),
      PAW_JOBS_DIR: dir,
    };
    const unknown = await runPaw(['schedules', 'pause', 'every-secnd', '--reason', 'x'], {
      env,
      cwd: dir,
    });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /no job definition has the id every-secnd .*did you mean every-second\?/,
    );
    const noReason = await runPaw(['schedules', 'pause', 'every-second'], { env, cwd: dir });
    expect(noReason.code).toBe(2);
    expect(noReason.stderr).toMatch(/--reason/);
    const past = await runPaw(
      ['schedules', 'pause', 'every-second', '--reason', 'x', '--until', '2020-01-01T00:00:00Z'],
      { env, cwd: dir },
    );
    expect(past.code).toBe(2);
    expect(past.stderr).toMatch(/--until 2020-01-01T00:00:00Z: give a time to come/);
  });
});
