import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsSchema } from '../../src/config/settings-schema.js';
import { checkDefinitions, loadDefinitions } from '../../src/definitions/load-definitions.js';
import { silentLogger } from '../../src/shared/logger.js';
import { OutcomeQueries } from '../../src/outcomes/outcome-queries.js';
import type { RunRecord } from '../../src/outcomes/outcome-records.js';
import { Outcomes } from '../../src/outcomes/outcomes.js';
import { RunProducer } from '../../src/queue/run-producer.js';
import { RunQueues } from '../../src/queue/run-queues.js';
import { FireCoordinator } from '../../src/scheduler/fire-coordinator.js';
import { RunFirer } from '../../src/scheduler/run-firer.js';
import { Scheduler } from '../../src/scheduler/scheduler.js';
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

const CALENDARS = `
calendars:
  dst-day:
    description: the day Berlin springs forward
    days: [2026-03-29]
  change-freeze:
    days:
      - 2026-12-20..2027-01-04
`;

const NIGHTLY = `
id: nightly
kind: snapshot
schedule:
  cron: "30 0 * * *"
  timezone: Europe/Berlin
  overlap: allow
  skip: [dst-day, 2026-03-31]
targets: { types: [VSPHERE_VM] }
keepForever: true
`;

function byFireTime(runs: readonly RunRecord[]): RunRecord[] {
  return [...runs].sort((a, b) => Date.parse(a.fireTime) - Date.parse(b.fireTime));
}

describe('schedule.skip and jobs/calendars.yaml', () => {
  it('resolves calendar names at load, so a loaded definition carries its dates', async () => {
    const dir = await jobsFolder({ 'calendars.yaml': CALENDARS, 'nightly.yaml': NIGHTLY });
    const [loaded] = await loadDefinitions(dir);
    expect(loaded?.definition.schedule.skip).toEqual([
      { calendar: 'dst-day', days: ['2026-03-29'] },
      '2026-03-31',
    ]);
  });

  it('names an unknown calendar, a bad date and a bad calendars file, each with its line and fix', async () => {
    const dir = await jobsFolder({
      'calendars.yaml': 'calendars:\n  holidays:\n    days: [2026-12-25, 2026-02-30]\n',
      'nightly.yaml': NIGHTLY.replace('skip: [dst-day, 2026-03-31]', 'skip: [holiday, 2026-13-01]'),
    });
    const report = await checkDefinitions(dir);
    const problems = report.problems.map((p) => `${p.path}: ${p.message}; ${p.fix}`);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^calendars\.holidays\.days\[1\]: "2026-02-30" 2026-02-30 is not a day of the calendar/,
        ),
        expect.stringMatching(/^schedule\.skip\[1\]: "2026-13-01" 2026-13-01 is not a day/),
      ]),
    );
    // The calendars file is not read as a definition.
    expect(report.problems.some((p) => p.path === 'kind')).toBe(false);

    const unknownName = await jobsFolder({
      'calendars.yaml': CALENDARS,
      'nightly.yaml': NIGHTLY.replace('dst-day', 'dst-dya'),
    });
    const result = await runPaw(['validate'], {
      env: { PAW_JOBS_DIR: unknownName },
      cwd: unknownName,
    });
    expect(result.code).toBe(2);
    expect(result.stderr + result.stdout).toMatch(
      /nightly\.yaml:8:10: schedule\.skip\[0\]: "dst-dya" is not a calendar of calendars\.yaml.*did you mean "dst-day"\?/,
    );
  });

  it('records a fire on a calendar day as skipped, by its local date across a DST change (controlled clock)', async () => {
    const prefix = uniquePrefix('calendar');
    const settings = settingsSchema.parse({ redis: { url: testRedisUrl(), prefix } });
    const dir = await jobsFolder({ 'calendars.yaml': CALENDARS, 'nightly.yaml': NIGHTLY });
    const definitions = (await loadDefinitions(dir)).map((loaded) => loaded.definition);
    let now = new Date('2026-03-27T23:00:00Z');
    const clock = (): Date => now;
    const queues = new RunQueues(redis, settings);
    const store = new Outcomes(redis, prefix, undefined, clock);
    const scheduler = new Scheduler({
      definitions,
      coordinator: new FireCoordinator(redis, prefix, settings.scheduler.leaseMs),
      firer: new RunFirer(store.runs, new RunProducer(queues), silentLogger(), clock),
      settings: settings.scheduler,
      logger: silentLogger(),
      clock,
    });
    try {
      await scheduler.start({ tick: false });
      // Every 30 minutes for four days, as a scheduler that is always up would see them.
      while (now < new Date('2026-03-31T22:00:00Z')) {
        now = new Date(now.getTime() + 30 * 60_000);
        await scheduler.tick(now);
      }
      const runs = byFireTime(
        await new OutcomeQueries(redis, prefix).listRuns({ definitionId: 'nightly', limit: 100 }),
      );
      expect(runs.map((run) => [run.fireTime, run.status, run.reason ?? ''])).toEqual([
        ['2026-03-27T23:30:00.000Z', 'queued', ''],
        [
          '2026-03-28T23:30:00.000Z', // 00:30 CET on the 29th: the UTC date is the 28th
          'skipped',
          'calendar dst-day skips 2026-03-29, a local date in Europe/Berlin',
        ],
        ['2026-03-29T22:30:00.000Z', 'queued', ''], // 00:30 CEST on the 30th
        [
          '2026-03-30T22:30:00.000Z',
          'skipped',
          'schedule.skip skips 2026-03-31, a local date in Europe/Berlin',
        ],
      ]);
      const jobs = await queues.queue('snapshot').getJobs(['waiting', 'delayed']);
      expect(jobs.map((job) => job.id).sort()).toEqual([
        'nightly@20260327T233000Z',
        'nightly@20260329T223000Z',
      ]);
    } finally {
      await scheduler.stop();
      await queues.close();
    }
  });

  it('two scheduler replicas record each fire of a calendar day once, as skipped, and run none', async () => {
    const prefix = uniquePrefix('calendar');
    const day = (offset: number): string =>
      new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    // Yesterday to the day after tomorrow: at any time of day more than the 100,000 seconds that
    // `paw schedules` searches lie inside the freeze, so the listing finds no fire.
    const dir = await jobsFolder({
      'calendars.yaml': `calendars:\n  freeze:\n    days: ["${day(-1)}..${day(2)}"]\n`,
      'jobs.yaml': `
id: every-second
kind: snapshot
schedule: { cron: "* * * * * *", allowSubMinute: true, overlap: allow, skip: [freeze] }
targets: { types: [VSPHERE_VM] }
keepForever: true
`,
    });
    const env = { PAW_REDIS_URL: testRedisUrl(), PAW_REDIS_PREFIX: prefix, PAW_JOBS_DIR: dir };
    const queries = new OutcomeQueries(redis, prefix);
    const replicas = [
      new PawProcess(['scheduler'], { env, cwd: dir }),
      new PawProcess(['scheduler'], { env, cwd: dir }),
    ];
    try {
      await Promise.all(replicas.map((r) => r.waitForStderr(/ready \(replica/, 60_000)));
      await eventually(
        'four fires',
        async () => (await queries.listRuns({ definitionId: 'every-second' })).length >= 4,
      );
      const listing = await runPaw(['schedules', '--json', '--count', '2'], { env, cwd: dir });
      expect(listing.code, listing.stderr).toBe(0);
      expect(JSON.parse(listing.stdout)).toEqual([
        expect.objectContaining({
          id: 'every-second',
          nextFires: [],
          searchTruncated: true,
          skippedFires: [
            expect.objectContaining({
              count: 100_000,
              reason: `calendar freeze: ${day(-1)}..${day(2)}, local dates in UTC`,
            }),
          ],
        }),
      ]);
    } finally {
      await Promise.all(replicas.map((replica) => replica.stop('SIGTERM')));
    }
    const runs = byFireTime(await queries.listRuns({ definitionId: 'every-second', limit: 1000 }));
    const seconds = runs.map((run) => Date.parse(run.fireTime) / 1000);
    expect(new Set(seconds).size).toBe(seconds.length);
    for (let index = 1; index < seconds.length; index++) {
      expect(seconds[index]! - seconds[index - 1]!).toBe(1);
    }
    for (const run of runs) {
      expect(run).toMatchObject({
        status: 'skipped',
        reason: expect.stringMatching(
          /^calendar freeze skips \d{4}-\d{2}-\d{2} \(.*\), a local date in UTC$/,
        ) as unknown,
      });
    }
    const logged = replicas.map((r) => (r.stderr.match(/"result":"calendar"/g) ?? []).length);
    expect(logged.reduce((sum, count) => sum + count, 0)).toBe(runs.length);
    const waiting = await redis.llen(`${prefix}:snapshot:wait`);
    expect(waiting).toBe(0);
  }, 120_000);

  it('two backfill processes over a year with both DST changes skip each calendar day by its local date, each fire once', async () => {
    const prefix = uniquePrefix('calendar-dst');
    const dir = await jobsFolder({
      'calendars.yaml': 'calendars:\n  dst-changes:\n    days: [2025-10-26, 2026-03-29]\n',
      'jobs.yaml': `
id: twice-nightly
kind: snapshot
schedule:
  cron: "30 0,2 * * *"
  timezone: Europe/Berlin
  overlap: allow
  skip: [dst-changes]
targets: { types: [VSPHERE_VM] }
keepForever: true
`,
    });
    const env = { PAW_REDIS_URL: testRedisUrl(), PAW_REDIS_PREFIX: prefix, PAW_JOBS_DIR: dir };
    const range = ['--from', '2025-10-20T00:00:00Z', '--to', '2026-04-05T00:00:00Z', '--json'];
    // Two operators backfill the same range at once, as real processes.
    const [first, second] = await Promise.all([
      runPaw(['backfill', 'twice-nightly', ...range], { env, cwd: dir }),
      runPaw(['backfill', 'twice-nightly', ...range], { env, cwd: dir }),
    ]);
    expect(first.code, first.stderr).toBe(0);
    expect(second.code, second.stderr).toBe(0);
    type Report = { times: number; fires: { runId: string; result: string }[] };
    const reports = [JSON.parse(first.stdout) as Report, JSON.parse(second.stdout) as Report];
    const times = reports[0]?.times ?? 0;
    expect(times).toBe(2 * 167); // 00:30 and 02:30 local on each of 167 days
    expect(reports[1]?.times).toBe(times);
    // Each fire was created by one of the two, never both.
    const created = reports
      .flatMap((report) => report.fires)
      .filter((fire) => fire.result === 'enqueued' || fire.result === 'calendar');
    expect(created).toHaveLength(times);
    expect(new Set(created.map((fire) => fire.runId)).size).toBe(times);

    const runs = byFireTime(
      await new OutcomeQueries(redis, prefix).listRuns({ definitionId: 'twice-nightly' }),
    );
    expect(runs).toHaveLength(times);
    // The skipped fires are those whose local date is a calendar day, whatever their UTC date:
    // 00:30 local is the evening before in UTC; 02:30 on the day clocks go back fires once (its
    // first occurrence), and on the day they spring forward it does not exist and fires at 03:30.
    const skipped = runs.filter((run) => run.status === 'skipped');
    expect(skipped.map((run) => [run.fireTime, run.reason])).toEqual([
      [
        '2025-10-25T22:30:00.000Z',
        'calendar dst-changes skips 2025-10-26, a local date in Europe/Berlin',
      ],
      [
        '2025-10-26T00:30:00.000Z',
        'calendar dst-changes skips 2025-10-26, a local date in Europe/Berlin',
      ],
      [
        '2026-03-28T23:30:00.000Z',
        'calendar dst-changes skips 2026-03-29, a local date in Europe/Berlin',
      ],
      [
        '2026-03-29T01:30:00.000Z',
        'calendar dst-changes skips 2026-03-29, a local date in Europe/Berlin',
      ],
    ]);
    // Their neighbours run, including those on the same UTC date.
    const statusAt = (iso: string) => runs.find((run) => run.fireTime === iso)?.status;
    expect(statusAt('2025-10-25T00:30:00.000Z')).toBe('queued'); // 02:30 CEST on the 25th
    expect(statusAt('2025-10-26T23:30:00.000Z')).toBe('queued'); // 00:30 CET on the 27th
    expect(statusAt('2026-03-29T22:30:00.000Z')).toBe('queued'); // 00:30 CEST on the 30th
    expect(runs.filter((run) => run.status === 'queued')).toHaveLength(times - 4);
  }, 120_000);
});
