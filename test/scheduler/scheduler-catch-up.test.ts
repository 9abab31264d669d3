import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsSchema } from '../../src/config/settings-schema.js';
import { OutcomeQueries } from '../../src/outcomes/outcome-queries.js';
import { runIdFor } from '../../src/queue/run-id.js';
import { RunQueues } from '../../src/queue/run-queues.js';
import { jobsFolder } from '../testkit/definitions.js';
import { PawProcess } from '../testkit/paw-process.js';
import { connectTestRedis, testRedisUrl, uniquePrefix } from '../testkit/redis-connection.js';

let redis: Redis;

beforeAll(() => {
  redis = connectTestRedis();
});

afterAll(async () => {
  await redis.quit();
});

const DEFINITIONS = `
id: lenient
kind: snapshot
schedule: { cron: "* * * * * *", allowSubMinute: true, catchUp: 4s, overlap: allow }
targets: { types: [VSPHERE_VM] }
keepForever: true
---
id: strict
kind: snapshot
schedule: { cron: "* * * * * *", allowSubMinute: true, overlap: allow }
targets: { types: [VSPHERE_VM] }
keepForever: true
`;

describe('catch-up after downtime (real scheduler processes)', () => {
  it('enqueues the fires missed within catchUp once each, records older ones as missed', async () => {
    const prefix = uniquePrefix('catch-up-e2e');
    const dir = await jobsFolder({ 'jobs.yaml': DEFINITIONS });
    const env = {
      PAW_REDIS_URL: testRedisUrl(),
      PAW_REDIS_PREFIX: prefix,
      PAW_JOBS_DIR: dir,
      PAW_SCHEDULER_MISFIRE_GRACE_MS: '500',
    };
    const settings = settingsSchema.parse({ redis: { url: testRedisUrl(), prefix } });
    const queues = new RunQueues(redis, settings);
    const queries = new OutcomeQueries(redis, prefix);
    try {
      // A scheduler runs for a few fires, then stops.
      const first = new PawProcess(['scheduler'], { env, cwd: dir });
      await first.waitForStderr(/ready \(replica/, 60_000);
      await expect
        .poll(() => queues.queue('snapshot').count(), { timeout: 30_000, interval: 200 })
        .toBeGreaterThanOrEqual(6);
      expect(await first.stop('SIGTERM')).toEqual({ code: 0, signal: null });
      const stoppedAt = await redis.hgetall(`${prefix}:scheduler:cursors`);

      // Nothing runs for about eight seconds.
      await new Promise((resolve) => setTimeout(resolve, 8_000));

      const second = new PawProcess(['scheduler'], { env, cwd: dir });
      const caughtUp = await second.waitForStderr(
        /caught up at (\S+): (\d+) fires? enqueued, (\d+) recorded as missed/,
        60_000,
      );
      await second.waitForStderr(/ready \(replica/);
      expect(await second.stop('SIGTERM')).toEqual({ code: 0, signal: null });
      const restartedAt = Date.parse(caughtUp[1] ?? '');

      let expectEnqueued = 0;
      let expectMissed = 0;
      for (const [id, windowMs] of [
        ['lenient', 4000],
        ['strict', 500],
      ] as const) {
        const runs = new Map(
          (await queries.listRuns({ definitionId: id })).map((run) => [run.runId, run]),
        );
        // Every fire between the first scheduler's last one and the restart: one record each.
        for (let fire = Number(stoppedAt[id]) + 1000; fire <= restartedAt; fire += 1000) {
          const runId = runIdFor(id, new Date(fire), 'catch-up');
          const run = runs.get(runId);
          const lateBy = restartedAt - fire;
          const job = await queues.queue('snapshot').getJob(runId);
          if (lateBy <= windowMs) {
            expectEnqueued++;
            expect(run?.status, `${runId} ${lateBy} ms late`).toBe('queued');
            expect(run?.trigger).toBe(lateBy <= 500 ? 'cron' : 'catch-up');
            expect(job?.data).toMatchObject({ runId, trigger: run?.trigger });
          } else {
            expectMissed++;
            expect(run?.status, `${runId} ${lateBy} ms late`).toBe('missed');
            expect(run?.reason).toMatch(/outside the catch-up window/);
            expect(job).toBeUndefined();
          }
        }
      }
      expect(expectMissed).toBeGreaterThanOrEqual(8);
      expect(Number(caughtUp[2])).toBe(expectEnqueued);
      expect(Number(caughtUp[3])).toBe(expectMissed);
    } finally {
      await queues.close();
    }
  }, 120_000);
});
