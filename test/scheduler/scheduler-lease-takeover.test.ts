import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsSchema } from '../../src/config/settings-schema.js';
import { OutcomeQueries } from '../../src/outcomes/outcome-queries.js';
import { runIdFor } from '../../src/queue/run-id.js';
import { RunQueues } from '../../src/queue/run-queues.js';
import { FireCoordinator } from '../../src/scheduler/fire-coordinator.js';
import { jobsFolder } from '../testkit/definitions.js';
import { eventually } from '../testkit/eventually.js';
import { PawProcess } from '../testkit/paw-process.js';
import { connectTestRedis, testRedisUrl, uniquePrefix } from '../testkit/redis-connection.js';

let redis: Redis;

beforeAll(() => {
  redis = connectTestRedis();
});

afterAll(async () => {
  await redis.quit();
});

const DEFINITION = `
id: backlog
kind: snapshot
schedule: { cron: "* * * * * *", allowSubMinute: true, catchUp: 1h, overlap: allow }
targets: { types: [VSPHERE_VM] }
keepForever: true
`;

/** Seconds of fires the first replica has to catch up: long enough to be caught holding the lease. */
const BACKLOG_SECONDS = 1800;

describe('a scheduler replica killed while it holds a lease (real processes)', () => {
  it('leaves a lease that runs out within seconds; another replica takes its fires over, each once', async () => {
    const prefix = uniquePrefix('lease-takeover');
    const dir = await jobsFolder({ 'jobs.yaml': DEFINITION });
    // scheduler.leaseMs is left at its default: that is what this checks.
    const env = { PAW_REDIS_URL: testRedisUrl(), PAW_REDIS_PREFIX: prefix, PAW_JOBS_DIR: dir };
    const settings = settingsSchema.parse({ redis: { url: testRedisUrl(), prefix } });
    const queues = new RunQueues(redis, settings);
    const snapshots = queues.queue('snapshot');
    const cursorsKey = `${prefix}:scheduler:cursors`;
    const leaseKey = `${prefix}:scheduler:lease:backlog`;

    // The last fire handled was half an hour ago: the first replica to start catches up 1,800
    // fires, one after the other, under one claim.
    const seededCursor = Math.floor(Date.now() / 1000) * 1000 - BACKLOG_SECONDS * 1000;
    await redis.hset(cursorsKey, 'backlog', seededCursor);
    const processes: PawProcess[] = [];
    try {
      const holder = new PawProcess(['scheduler'], { env, cwd: dir });
      processes.push(holder);
      const holderOwner = `${hostname()}/${holder.child.pid}/`;

      // Part-way through the backlog, it stops dead while holding the lease: frozen first, so
      // that what it left in Redis can be read, then SIGKILLed.
      await eventually('the first replica enqueuing the backlog', async () => {
        return (await snapshots.count()) >= 100;
      });
      await eventually(
        'the first replica holding the lease',
        async () => (await redis.get(leaseKey))?.startsWith(holderOwner) === true,
        { intervalMs: 1 },
      );
      holder.child.kill('SIGSTOP');
      const leftBehind = await redis.get(leaseKey);
      const remainingMs = await redis.pttl(leaseKey);
      const enqueuedBeforeTheKill = await snapshots.count();
      const killedAt = Date.now();
      await holder.stop('SIGKILL');
      expect(leftBehind?.startsWith(holderOwner)).toBe(true);
      expect(enqueuedBeforeTheKill).toBeLessThan(BACKLOG_SECONDS);
      // The lease is short and renewed only while its holder works, so a dead holder's runs out
      // within seconds instead of the 30 s it used to be taken for.
      expect(remainingMs).toBeGreaterThan(0);
      expect(remainingMs).toBeLessThanOrEqual(settings.scheduler.leaseMs);
      expect(remainingMs).toBeLessThanOrEqual(5_000);

      // Another replica starts while that lease is still there, takes the fires over once it has
      // run out, and catches up to the present.
      const successor = new PawProcess(['scheduler'], { env, cwd: dir });
      processes.push(successor);
      await successor.waitForStderr(/ready \(replica/, 60_000);
      const present = Date.now() + 2000;
      await eventually(
        'the second replica handling every fire up to the present',
        async () => Number(await redis.hget(cursorsKey, 'backlog')) >= present,
      );
      expect(await successor.stop('SIGTERM')).toEqual({ code: 0, signal: null });

      // The takeover: the second replica handled fires the first had claimed (due before it was
      // killed) and had not got to.
      const takenOver = successor
        .logRecords()
        .filter((record) => ['fire enqueued', 'fire re-enqueued'].includes(String(record['msg'])))
        .map((record) => String(record['runId']));
      const backlogRunIds = new Set<string>();
      const last = Number(await redis.hget(cursorsKey, 'backlog'));
      const expected: string[] = [];
      for (let fire = seededCursor + 1000; fire <= last; fire += 1000) {
        const runId = runIdFor('backlog', new Date(fire), 'cron');
        expected.push(runId);
        if (fire < killedAt) backlogRunIds.add(runId);
      }
      expect(takenOver.filter((runId) => backlogRunIds.has(runId)).length).toBeGreaterThan(0);

      // Exactly once: every second from the seeded cursor to the last one handled has one job
      // and one run, queued (none missed), and BullMQ added each job once.
      expected.sort();
      const jobs = await snapshots.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed']);
      expect(jobs.map((job) => job.id ?? '').sort()).toEqual(expected);
      const runs = await new OutcomeQueries(redis, prefix).listRuns({ definitionId: 'backlog' });
      expect(runs.map((run) => run.runId).sort()).toEqual(expected);
      expect(runs.filter((run) => run.status !== 'queued')).toEqual([]);
      const added = new Map<string, number>();
      for (const [, fields] of await redis.xrange(`${prefix}:${snapshots.name}:events`, '-', '+')) {
        if (fields[fields.indexOf('event') + 1] !== 'added') continue;
        const jobId = fields[fields.indexOf('jobId') + 1] ?? '';
        added.set(jobId, (added.get(jobId) ?? 0) + 1);
      }
      expect([...added.keys()].sort()).toEqual(expected);
      expect([...added.values()].every((count) => count === 1)).toBe(true);
    } finally {
      await Promise.all(processes.map((paw) => paw.stop('SIGKILL')));
      await queues.close();
    }
  }, 180_000);
});

describe('FireLease (real Redis)', () => {
  const fireAt = (second: number): Date => new Date(Date.UTC(2026, 0, 1, 0, 0, second));

  it('is renewed while its holder works, moving the cursor past what it handled', async () => {
    const prefix = uniquePrefix('lease-renewal');
    const holder = new FireCoordinator(redis, prefix, 1000);
    const other = new FireCoordinator(redis, prefix, 1000);
    const claim = await holder.claim('def', fireAt(10));
    if (claim.status !== 'claimed') throw new Error(`expected a claim, got ${claim.status}`);

    await claim.lease.renewedWhile(async () => {
      claim.lease.handled(fireAt(5));
      // Three lease lengths of work: renewed, it is still this holder's.
      await sleep(3000);
      expect(await other.claim('def', fireAt(10))).toMatchObject({ status: 'held' });
      expect(await redis.hget(`${prefix}:scheduler:cursors`, 'def')).toBe(
        String(fireAt(5).getTime()),
      );
      expect(claim.lease.lost).toBe(false);
    });
    await claim.lease.complete(fireAt(10));
    expect(await other.claim('def', fireAt(10))).toMatchObject({ status: 'handled' });
    expect(await redis.exists(`${prefix}:scheduler:lease:def`)).toBe(0);
  });

  it('tells a holder paused past its lease that another replica has taken it', async () => {
    const prefix = uniquePrefix('lease-lost');
    const holder = new FireCoordinator(redis, prefix, 1000);
    const other = new FireCoordinator(redis, prefix, 1000);
    const claim = await holder.claim('def', fireAt(10));
    if (claim.status !== 'claimed') throw new Error(`expected a claim, got ${claim.status}`);

    await claim.lease.renewedWhile(async () => {
      // As if the holder had been paused until its lease ran out and another replica claimed.
      await redis.del(`${prefix}:scheduler:lease:def`);
      const taken = await other.claim('def', fireAt(10));
      expect(taken.status).toBe('claimed');
      await eventually('the holder noticing it lost the lease', () => claim.lease.lost);
      // Completing what it handled leaves the other replica's lease alone.
      await claim.lease.complete(fireAt(3));
      expect(await redis.get(`${prefix}:scheduler:lease:def`)).toBe(other.owner);
    });
  });
});
