import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsSchema, type Settings } from '../../src/config/settings-schema.js';
import type { JobDefinition } from '../../src/definitions/job-definition.js';
import { silentLogger } from '../../src/shared/logger.js';
import { OutcomeQueries } from '../../src/outcomes/outcome-queries.js';
import { Outcomes } from '../../src/outcomes/outcomes.js';
import { RunProducer } from '../../src/queue/run-producer.js';
import { RunQueues } from '../../src/queue/run-queues.js';
import { FireCoordinator } from '../../src/scheduler/fire-coordinator.js';
import { jitterOffsetMs } from '../../src/scheduler/fire-jitter.js';
import { RunFirer } from '../../src/scheduler/run-firer.js';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { exampleDefinition } from '../testkit/definitions.js';
import type { PawFleet } from '../testkit/paw-fleet.js';
import { connectTestRedis, testRedisUrl, uniquePrefix } from '../testkit/redis-connection.js';
import { testFleet } from '../testkit/test-fleet.js';
import { startSimulatorKit, type SimulatorKit } from '../testkit/simulator-kit.js';

let redis: Redis;
beforeAll(() => {
  redis = connectTestRedis();
});
afterAll(async () => {
  await redis.quit();
});

function settingsFor(prefix: string): Settings {
  return settingsSchema.parse({ redis: { url: testRedisUrl(), prefix } });
}

/** A scheduler replica on a controlled clock. */
function replicaAt(settings: Settings, definitions: readonly JobDefinition[], clock: () => Date) {
  const queues = new RunQueues(redis, settings);
  const store = new Outcomes(redis, settings.redis.prefix, undefined, clock);
  const scheduler = new Scheduler({
    definitions,
    coordinator: new FireCoordinator(redis, settings.redis.prefix, settings.scheduler.leaseMs),
    firer: new RunFirer(store.runs, new RunProducer(queues), silentLogger(), clock),
    settings: settings.scheduler,
    logger: silentLogger(),
    clock,
  });
  return {
    scheduler,
    close: async () => {
      await scheduler.stop();
      await queues.close();
    },
  };
}

describe('schedule.jitter', () => {
  it('gives each fire a fixed delay below the jitter, and spreads definitions set to the same minute', () => {
    const fire = new Date('2026-12-01T01:00:00Z');
    const offsets = Array.from({ length: 50 }, (_, index) =>
      jitterOffsetMs(`nightly-${index}`, fire, 60_000),
    );
    for (const offset of offsets) {
      expect(offset).toBeGreaterThanOrEqual(0);
      expect(offset).toBeLessThan(60_000);
    }
    // The same fire, the same delay, on any replica; another fire of it, another delay.
    expect(jitterOffsetMs('nightly-0', fire, 60_000)).toBe(offsets[0]);
    expect(jitterOffsetMs('nightly-0', new Date('2026-12-02T01:00:00Z'), 60_000)).not.toBe(
      offsets[0],
    );
    expect(Math.max(...offsets) - Math.min(...offsets)).toBeGreaterThan(40_000);
    expect(new Set(offsets.map((offset) => Math.floor(offset / 1000))).size).toBeGreaterThan(25);
  });

  it('enqueues a fire at its time plus its delay, not before, with trigger cron (controlled clock)', async () => {
    const settings = settingsFor(uniquePrefix('jitter'));
    const definition = exampleDefinition('snapshot', {
      id: 'jittered',
      schedule: { cron: '0 * * * *', timezone: 'UTC', jitter: '10m' },
    });
    const fire = new Date('2026-12-01T01:00:00Z');
    const offset = jitterOffsetMs('jittered', fire, 600_000);
    expect(offset).toBeGreaterThan(0);
    let now = new Date(fire.getTime() - 60_000);
    const replica = replicaAt(settings, [definition], () => now);
    const queries = new OutcomeQueries(redis, settings.redis.prefix);
    try {
      await replica.scheduler.start({ tick: false });
      now = new Date(fire.getTime() + offset - 1);
      await replica.scheduler.tick(now);
      expect(await queries.listRuns({ definitionId: 'jittered' })).toEqual([]);
      now = new Date(fire.getTime() + offset);
      await replica.scheduler.tick(now);
      expect(await queries.listRuns({ definitionId: 'jittered' })).toEqual([
        expect.objectContaining({
          runId: 'jittered@20261201T010000Z',
          fireTime: fire.toISOString(),
          trigger: 'cron',
          status: 'queued',
          createdAt: now.toISOString(),
        }),
      ]);
    } finally {
      await replica.close();
    }
  });

  it('is refused when it would reorder fires, exceed the start deadline, or delay a window', () => {
    const problems = (
      schedule: Record<string, unknown>,
      kind: JobDefinition['kind'] = 'snapshot',
    ) => {
      try {
        exampleDefinition(kind, { schedule });
        return '';
      } catch (error) {
        return String(error);
      }
    };
    expect(problems({ cron: '*/5 * * * *', jitter: '5m' })).toMatch(
      /5m is not shorter than the schedule's period \(fires can be 5m apart\)/,
    );
    expect(problems({ cron: '0 1 * * *', jitter: '10m', startDeadline: '5m' })).toMatch(
      /10m is not shorter than startDeadline \(5m\)/,
    );
    expect(problems({ cron: '0 1 * * *', startDeadline: '500ms' })).toMatch(
      /500ms leaves no time for a worker to take the run/,
    );
    expect(problems({ cron: '0 22 * * 6', duration: '4h', jitter: '1m' }, 'sla-window')).toMatch(
      /a maintenance window opens at its time, so it takes no jitter/,
    );
    expect(problems({ cron: '0 1 * * *', jitter: '30m', startDeadline: '1h' })).toBe('');
  });
});

describe('schedule.startDeadline', () => {
  it('a scheduler that handles a fire past its deadline records it missed, even within catchUp', async () => {
    const settings = settingsFor(uniquePrefix('deadline'));
    const strict = exampleDefinition('snapshot', {
      id: 'strict',
      schedule: { cron: '0 * * * *', timezone: 'UTC', catchUp: '1h', startDeadline: '2m' },
    });
    const lenient = exampleDefinition('snapshot', {
      id: 'lenient',
      schedule: { cron: '0 * * * *', timezone: 'UTC', catchUp: '1h' },
    });
    const queries = new OutcomeQueries(redis, settings.redis.prefix);
    // Both definitions known to the schedulers since before 01:00; no scheduler ran at 01:00.
    let now = new Date('2026-12-01T00:59:00Z');
    const first = replicaAt(settings, [strict, lenient], () => now);
    await first.scheduler.start({ tick: false });
    await first.close();
    now = new Date('2026-12-01T01:05:00Z');
    const second = replicaAt(settings, [strict, lenient], () => now);
    try {
      await second.scheduler.start({ tick: false });
      const [strictRun] = await queries.listRuns({ definitionId: 'strict' });
      expect(strictRun).toMatchObject({
        status: 'missed',
        reason: 'no scheduler handled it until 5m after its time, past its start deadline (2m)',
      });
      const [lenientRun] = await queries.listRuns({ definitionId: 'lenient' });
      expect(lenientRun).toMatchObject({ status: 'queued', trigger: 'catch-up' });
    } finally {
      await second.close();
    }
  });

  describe('a run no worker took in time (real paw worker process)', () => {
    let kit: SimulatorKit;
    let fleet: PawFleet | undefined;

    beforeAll(async () => {
      kit = await startSimulatorKit({ workloads: 4, timeScale: 1000 }, 'deadline');
    });
    afterAll(async () => {
      await fleet?.stop();
      await kit?.close();
    });

    it('is recorded missed with the reason when a worker finally takes it, and never runs', async () => {
      fleet = await testFleet(redis, { credentialsFile: kit.credentialsFile, label: 'deadline' });
      const settings = fleet.settings;
      const queues = new RunQueues(redis, settings);
      const store = new Outcomes(redis, settings.redis.prefix);
      const firer = new RunFirer(store.runs, new RunProducer(queues), silentLogger());
      const definition = exampleDefinition('snapshot', {
        id: 'tight',
        schedule: { cron: '0 1 * * *', startDeadline: '1s', overlap: 'allow' },
        retention: undefined,
        keepForever: true,
      });
      try {
        const now = Date.now();
        // Fired as the scheduler fires: one past its deadline by the time a worker starts, one not.
        const late = await firer.fire(definition, new Date(now - 1000), 'cron', {
          startBy: { at: new Date(now), deadline: '1s' },
        });
        const inTime = await firer.fire(definition, new Date(now), 'cron', {
          startBy: { at: new Date(now + 600_000), deadline: '10m' },
        });
        await new Promise((resolve) => setTimeout(resolve, 200));
        await fleet.start(['worker', '--kinds', 'snapshot']);
        const missed = await fleet.waitForRun(late.runId);
        expect(missed).toMatchObject({
          status: 'missed',
          reason:
            'no worker took it within its start deadline (1s) after its time: the workers were down or busy',
          counts: expect.objectContaining({ total: 0 }) as unknown,
        });
        expect(missed.startedAt).toBeUndefined();
        const ran = await fleet.waitForRun(inTime.runId);
        // It ran (its items' own outcomes are the simulator's: a disconnected cluster fails some).
        expect(ran.status).not.toBe('missed');
        expect(ran.startedAt).toBeDefined();
        expect(ran.counts.total).toBeGreaterThan(0);
        // Out of the active runs: the next fire with overlap skip is not held back by it.
        expect(await store.runs.activeBefore('tight', new Date(now + 3_600_000))).toBeUndefined();
      } finally {
        await queues.close();
      }
    }, 120_000);
  });
});
