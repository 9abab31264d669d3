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
import { RunFirer, type FireResult } from '../../src/scheduler/run-firer.js';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { exampleDefinition } from '../testkit/definitions.js';
import { connectTestRedis, testRedisUrl, uniquePrefix } from '../testkit/redis-connection.js';

let redis: Redis;

beforeAll(() => {
  redis = connectTestRedis();
});

afterAll(async () => {
  await redis.quit();
});

/** A controllable clock. */
class Clock {
  constructor(public now: Date) {}
  read = (): Date => this.now;
  set(iso: string): Date {
    this.now = new Date(iso);
    return this.now;
  }
}

interface Replica {
  readonly scheduler: Scheduler;
  readonly results: FireResult[];
  readonly coordinator: FireCoordinator;
  readonly close: () => Promise<void>;
}

function replica(settings: Settings, definitions: readonly JobDefinition[], clock: Clock): Replica {
  const queues = new RunQueues(redis, settings);
  const store = new Outcomes(redis, settings.redis.prefix, undefined, clock.read);
  const coordinator = new FireCoordinator(redis, settings.redis.prefix, settings.scheduler.leaseMs);
  const firer = new RunFirer(store.runs, new RunProducer(queues), silentLogger(), clock.read);
  const results: FireResult[] = [];
  const scheduler = new Scheduler({
    definitions,
    coordinator,
    firer,
    settings: settings.scheduler,
    logger: silentLogger(),
    clock: clock.read,
    onFire: (_definition, _fire, result) => results.push(result),
  });
  return {
    scheduler,
    results,
    coordinator,
    close: async () => {
      await scheduler.stop();
      await queues.close();
    },
  };
}

function settingsFor(prefix: string, scheduler: Record<string, unknown> = {}): Settings {
  return settingsSchema.parse({
    redis: { url: testRedisUrl(), prefix },
    scheduler: { misfireGraceMs: 1000, ...scheduler },
  });
}

async function jobIds(settings: Settings, kind: JobDefinition['kind']): Promise<string[]> {
  const queues = new RunQueues(redis, settings);
  try {
    const jobs = await queues.queue(kind).getJobs(['waiting', 'delayed', 'active', 'completed']);
    return jobs.map((job) => job.id ?? '').sort();
  } finally {
    await queues.close();
  }
}

describe('Scheduler (real Redis, controlled clock)', () => {
  it('catches up after downtime: within catchUp enqueued once each, older ones recorded missed', async () => {
    const prefix = uniquePrefix('catch-up');
    const settings = settingsFor(prefix);
    const hourly = exampleDefinition('snapshot', {
      id: 'hourly',
      schedule: { cron: '0 * * * *', timezone: 'Europe/Berlin', catchUp: '2h', overlap: 'allow' },
    });
    const clock = new Clock(new Date('2025-03-29T20:30:00Z'));

    // A first scheduler runs until 21:00 UTC and handles that fire.
    const first = replica(settings, [hourly], clock);
    expect((await first.scheduler.start({ tick: false })).enqueued).toBe(0);
    clock.set('2025-03-29T21:00:00.200Z');
    await first.scheduler.tick();
    expect(first.results.map((result) => [result.runId, result.result])).toEqual([
      ['hourly@20250329T210000Z', 'enqueued'],
    ]);
    await first.close();

    // No scheduler runs across the night (and the spring-forward change). One starts at 03:10.
    clock.set('2025-03-30T03:10:00Z');
    const second = replica(settings, [hourly], clock);
    const summary = await second.scheduler.start({ tick: false });
    expect(summary).toMatchObject({ enqueued: 2, missed: 4, unrecordedMissed: 0 });
    expect(second.results.map((result) => [result.runId, result.result])).toEqual([
      ['hourly@20250329T220000Z', 'missed'],
      ['hourly@20250329T230000Z', 'missed'],
      ['hourly@20250330T000000Z', 'missed'],
      ['hourly@20250330T010000Z', 'missed'],
      ['hourly@20250330T020000Z', 'enqueued'],
      ['hourly@20250330T030000Z', 'enqueued'],
    ]);
    expect(await jobIds(settings, 'snapshot')).toEqual([
      'hourly@20250329T210000Z',
      'hourly@20250330T020000Z',
      'hourly@20250330T030000Z',
    ]);
    const runs = await new OutcomeQueries(redis, prefix).listRuns({ order: 'oldest-first' });
    expect(runs.map((run) => [run.runId, run.status, run.trigger])).toEqual([
      ['hourly@20250329T210000Z', 'queued', 'cron'],
      ['hourly@20250329T220000Z', 'missed', 'catch-up'],
      ['hourly@20250329T230000Z', 'missed', 'catch-up'],
      ['hourly@20250330T000000Z', 'missed', 'catch-up'],
      ['hourly@20250330T010000Z', 'missed', 'catch-up'],
      ['hourly@20250330T020000Z', 'queued', 'catch-up'],
      ['hourly@20250330T030000Z', 'queued', 'catch-up'],
    ]);
    expect(runs[1]?.reason).toMatch(/outside the catch-up window \(2h\)/);

    // Starting again changes nothing: every fire was handled once.
    const third = replica(settings, [hourly], clock);
    expect(await third.scheduler.start({ tick: false })).toMatchObject({ enqueued: 0, missed: 0 });
    expect(third.results).toEqual([]);
    await Promise.all([second.close(), third.close()]);
  });

  it('does not catch up fires from before a definition existed', async () => {
    const settings = settingsFor(uniquePrefix('new-definition'));
    const clock = new Clock(new Date('2025-06-01T12:00:00Z'));
    const daily = exampleDefinition('snapshot', {
      schedule: { cron: '0 1 * * *', catchUp: '1d' },
    });
    const scheduler = replica(settings, [daily], clock);
    expect(await scheduler.scheduler.start({ tick: false })).toMatchObject({
      enqueued: 0,
      missed: 0,
    });
    await scheduler.close();
  });

  it('records a fire as skipped while the previous run is still active (overlap: skip)', async () => {
    const prefix = uniquePrefix('overlap');
    const settings = settingsFor(prefix);
    const clock = new Clock(new Date('2025-06-01T00:59:00Z'));
    const skip = exampleDefinition('snapshot', {
      id: 'skipper',
      schedule: { cron: '0 * * * *', overlap: 'skip' },
    });
    const allow = exampleDefinition('snapshot', {
      id: 'allower',
      schedule: { cron: '0 * * * *', overlap: 'allow' },
    });
    const node = replica(settings, [skip, allow], clock);
    await node.scheduler.start({ tick: false });
    clock.set('2025-06-01T01:00:00.100Z');
    await node.scheduler.tick();
    clock.set('2025-06-01T02:00:00.100Z');
    await node.scheduler.tick(); // nobody ran the 01:00 runs: they are still queued

    const store = new Outcomes(redis, prefix);
    expect(await store.runs.get('skipper@20250601T020000Z')).toMatchObject({
      status: 'skipped',
      reason: 'the previous run skipper@20250601T010000Z is still queued (overlap: skip)',
    });
    expect((await store.runs.get('allower@20250601T020000Z'))?.status).toBe('queued');
    expect(await jobIds(settings, 'snapshot')).toEqual([
      'allower@20250601T010000Z',
      'allower@20250601T020000Z',
      'skipper@20250601T010000Z',
    ]);

    // Once the 01:00 run finishes, the next fire runs again.
    await store.runs.start('skipper@20250601T010000Z');
    await store.runs.finish('skipper@20250601T010000Z');
    clock.set('2025-06-01T03:00:00.100Z');
    await node.scheduler.tick();
    expect((await store.runs.get('skipper@20250601T030000Z'))?.status).toBe('queued');
    await node.close();
  });

  it('lets two replicas ticking at once add each fire once, and takes over from a dead one', async () => {
    const prefix = uniquePrefix('replicas');
    const settings = settingsFor(prefix, { leaseMs: 1000 });
    const clock = new Clock(new Date('2025-06-01T00:00:00.500Z'));
    const everySecond = exampleDefinition('snapshot', {
      id: 'fast',
      schedule: { cron: '* * * * * *', allowSubMinute: true, overlap: 'allow' },
    });
    const a = replica(settings, [everySecond], clock);
    const b = replica(settings, [everySecond], clock);
    await Promise.all([a.scheduler.start({ tick: false }), b.scheduler.start({ tick: false })]);
    for (let second = 1; second <= 20; second++) {
      clock.now = new Date(Date.parse('2025-06-01T00:00:00.100Z') + second * 1000);
      await Promise.all([a.scheduler.tick(), b.scheduler.tick()]);
    }
    const enqueued = [...a.results, ...b.results].filter((result) => result.result === 'enqueued');
    expect(enqueued).toHaveLength(20);
    expect(new Set(enqueued.map((result) => result.runId)).size).toBe(20);
    expect(await jobIds(settings, 'snapshot')).toHaveLength(20);

    // A replica that claimed the next fire and died: the other waits for the lease, then handles it.
    clock.now = new Date('2025-06-01T00:00:21.100Z');
    const dead = new FireCoordinator(redis, prefix, 1000);
    expect((await dead.claim('fast', new Date('2025-06-01T00:00:21Z'))).status).toBe('claimed');
    await b.scheduler.tick();
    expect(b.results.some((result) => result.runId === 'fast@20250601T000021Z')).toBe(false);
    await expect
      .poll(
        async () => {
          await b.scheduler.tick();
          return b.results.some((result) => result.runId === 'fast@20250601T000021Z');
        },
        { timeout: 10_000, interval: 200 },
      )
      .toBe(true);
    expect(await jobIds(settings, 'snapshot')).toHaveLength(21);
    await Promise.all([a.close(), b.close()]);
  });
});
