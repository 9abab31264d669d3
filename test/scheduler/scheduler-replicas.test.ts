import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsSchema } from '../../src/config/settings-schema.js';
import { OutcomeQueries } from '../../src/outcomes/outcome-queries.js';
import { runIdFor } from '../../src/queue/run-id.js';
import { RunQueues } from '../../src/queue/run-queues.js';
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

const CLIENT_ID = 'client|5b1d7f3e-2c4a-4e8b-9f6d-0a1b2c3d4e5f';

/** Five definitions of the three kinds, each firing every second: about 100 fires in 20 s. */
const DEFINITIONS = `
id: snap-a
kind: snapshot
schedule: { cron: "* * * * * *", allowSubMinute: true, overlap: allow }
targets: { types: [VSPHERE_VM] }
keepForever: true
---
id: snap-b
kind: snapshot
schedule: { cron: "* * * * * *", allowSubMinute: true, timezone: Europe/Berlin, overlap: allow }
targets: { namePattern: "prod-*" }
retention: { slaDomainName: Gold }
---
id: window-a
kind: sla-window
schedule: { cron: "* * * * * *", allowSubMinute: true, duration: 500ms, overlap: allow }
slaDomains: { names: [Gold] }
---
id: window-b
kind: sla-window
schedule: { cron: "* * * * * *", allowSubMinute: true, timezone: America/New_York, duration: 500ms, overlap: allow }
slaDomains: { ids: [sla-1] }
---
id: rotate
kind: rotate-secret
schedule: { cron: "* * * * * *", allowSubMinute: true, overlap: allow }
serviceAccount: { clientId: "${CLIENT_ID}" }
sink: { file: sink.json }
`;

const IDS = ['snap-a', 'snap-b', 'window-a', 'window-b', 'rotate'];
const KIND_OF: Record<string, 'snapshot' | 'sla-window' | 'rotate-secret'> = {
  'snap-a': 'snapshot',
  'snap-b': 'snapshot',
  'window-a': 'sla-window',
  'window-b': 'sla-window',
  rotate: 'rotate-secret',
};

describe('three scheduler replicas (real processes)', () => {
  it('enqueue every fire exactly once, none missed, even when one replica is killed', async () => {
    const prefix = uniquePrefix('replicas');
    const dir = await jobsFolder({ 'jobs.yaml': DEFINITIONS });
    const env = {
      PAW_REDIS_URL: testRedisUrl(),
      PAW_REDIS_PREFIX: prefix,
      PAW_JOBS_DIR: dir,
      // A killed replica's claim expires quickly, so the others take over its fires.
      PAW_SCHEDULER_LEASE_MS: '2000',
    };
    // The first replica starts alone, so the definitions' cursors start at its start-up; the
    // other two join while it is already firing.
    const replicas = [new PawProcess(['scheduler'], { env, cwd: dir })];
    try {
      const caughtUp = await replicas[0]!.waitForStderr(/caught up at (\S+):/, 60_000);
      const firstStart = new Date(caughtUp[1] ?? '');
      replicas.push(
        new PawProcess(['scheduler'], { env, cwd: dir }),
        new PawProcess(['scheduler'], { env, cwd: dir }),
      );
      await Promise.all(
        replicas.map((replica) => replica.waitForStderr(/ready \(replica/, 60_000)),
      );

      const settings = settingsSchema.parse({ redis: { url: testRedisUrl(), prefix } });
      const queues = new RunQueues(redis, settings);
      const jobCount = async (): Promise<number> => {
        let total = 0;
        for (const kind of ['snapshot', 'sla-window', 'rotate-secret'] as const) {
          total += await queues.queue(kind).count();
        }
        return total;
      };

      // A third of the way in, one of the later replicas dies without any chance to clean up.
      await eventually('35 jobs', async () => (await jobCount()) >= 35, { intervalMs: 200 });
      const killed = replicas[1];
      await killed?.stop('SIGKILL');
      await eventually('110 jobs', async () => (await jobCount()) >= 110, {
        timeoutMs: 90_000,
        intervalMs: 200,
      });

      const survivors = [replicas[0]!, replicas[2]!];
      const exits = await Promise.all(survivors.map((replica) => replica.stop('SIGTERM')));
      expect(exits).toEqual([
        { code: 0, signal: null },
        { code: 0, signal: null },
      ]);
      for (const replica of survivors) expect(replica.stderr).toMatch(/paw scheduler: stopped/);

      const cursors = await redis.hgetall(`${prefix}:scheduler:cursors`);
      const queries = new OutcomeQueries(redis, prefix);
      let totalFires = 0;
      for (const id of IDS) {
        const kind = KIND_OF[id] ?? 'snapshot';
        const queue = queues.queue(kind);
        const jobs = await queue.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed']);
        const ids = jobs
          .map((job) => job.id ?? '')
          .filter((jobId) => jobId.startsWith(`${id}@`))
          .sort();

        // Every second from the first fire after the first replica started to the last fire
        // handled (the cursor) has exactly one job: no gap, no duplicate.
        const last = Number(cursors[id]);
        const first = Math.floor(firstStart.getTime() / 1000) * 1000 + 1000;
        const expected: string[] = [];
        for (let fire = first; fire <= last; fire += 1000) {
          expected.push(runIdFor(id, new Date(fire), 'cron'));
        }
        expect(ids).toEqual(expected.sort());
        totalFires += ids.length;

        // The outcome store agrees: one queued run per fire, none skipped or missed.
        const runs = await queries.listRuns({ definitionId: id });
        expect(runs.map((run) => run.runId).sort()).toEqual(expected.sort());
        expect(runs.every((run) => run.status === 'queued')).toBe(true);
        expect(jobs.find((job) => job.id === expected[0])?.data).toMatchObject({
          definitionId: id,
          kind,
          fireTime: new Date(first).toISOString(),
        });
      }
      expect(totalFires).toBeGreaterThanOrEqual(100);

      // BullMQ itself saw one add per job id: the replicas never added a fire twice.
      for (const kind of ['snapshot', 'sla-window', 'rotate-secret'] as const) {
        const events = await redis.xrange(`${prefix}:${queues.queue(kind).name}:events`, '-', '+');
        const added = new Map<string, number>();
        for (const [, fields] of events) {
          const event = fields[fields.indexOf('event') + 1];
          const jobId = fields[fields.indexOf('jobId') + 1] ?? '';
          if (event === 'added') added.set(jobId, (added.get(jobId) ?? 0) + 1);
        }
        expect([...added.values()].every((count) => count === 1)).toBe(true);
        expect(added.size).toBe(await queues.queue(kind).count());
      }
      await queues.close();
    } finally {
      await Promise.all(replicas.map((replica) => replica.stop('SIGKILL')));
    }
  }, 180_000);
});
