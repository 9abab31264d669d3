import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsSchema } from '../../src/config/settings-schema.js';
import { EXPORT_COLUMNS } from '../../src/outcomes/outcome-export.js';
import type { ItemRow, RunRecord } from '../../src/outcomes/outcome-records.js';
import { Outcomes } from '../../src/outcomes/outcomes.js';
import { RunQueues } from '../../src/queue/run-queues.js';
import { CronSchedule } from '../../src/definitions/schedule/cron-schedule.js';
import type { FireResult } from '../../src/scheduler/run-firer.js';
import { parseCsv } from '../testkit/csv.js';
import { jobsFolder } from '../testkit/definitions.js';
import { PawProcess, runPaw } from '../testkit/paw-process.js';
import { connectTestRedis, testRedisUrl, uniquePrefix } from '../testkit/redis-connection.js';

const DEFINITIONS = `
id: nightly
kind: snapshot
schedule: { cron: "0 1 * * *", timezone: Europe/Berlin, overlap: skip }
targets: { types: [VSPHERE_VM, MSSQL_DATABASE] }
retention: { slaDomainName: Gold }
---
id: saturday
kind: sla-window
enabled: false
schedule: { cron: "0 22 * * 6", duration: 4h }
slaDomains: { names: [Gold] }
`;

let redis: Redis;
let dir: string;
let env: Record<string, string>;
let prefix: string;
let store: Outcomes;
let queues: RunQueues;

beforeAll(async () => {
  redis = connectTestRedis();
  dir = await jobsFolder({ 'jobs.yaml': DEFINITIONS });
  prefix = uniquePrefix('cli');
  env = { PAW_REDIS_URL: testRedisUrl(), PAW_REDIS_PREFIX: prefix, PAW_JOBS_DIR: dir };
  store = new Outcomes(redis, prefix);
  queues = new RunQueues(redis, settingsSchema.parse({ redis: { url: testRedisUrl(), prefix } }));
});

afterAll(async () => {
  await queues.close();
  await redis.quit();
});

const paw = (args: string[], extraEnv: Record<string, string> = {}) =>
  runPaw(args, { env: { ...env, ...extraEnv }, cwd: dir });

describe('paw schedules, run, runs and outcomes (real processes, real Redis)', () => {
  let firstRunId = '';

  it('paw schedules lists next fire times in each zone', async () => {
    const result = await paw(['schedules', '--count', '3', '--json']);
    expect(result.code).toBe(0);
    const schedules = JSON.parse(result.stdout) as {
      id: string;
      nextFires: string[];
      enabled: boolean;
    }[];
    const expected = CronSchedule.create('0 1 * * *', 'Europe/Berlin').nextFires(new Date(), 3);
    expect(schedules.find((entry) => entry.id === 'nightly')?.nextFires).toEqual(
      expected.map((fire) => fire.toISOString()),
    );
    expect(schedules.find((entry) => entry.id === 'saturday')?.enabled).toBe(false);
    const table = await paw(['schedules']);
    expect(table.stdout).toMatch(
      /nightly\s+snapshot\s+yes\s+no\s+0 1 \* \* \*\s+Europe\/Berlin\s+skip/,
    );
  });

  it('paw run enqueues a manual run; a second is skipped while the first is active', async () => {
    const first = await paw(['run', 'nightly', '--json']);
    expect(first.code).toBe(0);
    const fired = JSON.parse(first.stdout) as FireResult & { queue: string };
    expect(fired).toMatchObject({ result: 'enqueued', status: 'queued', queue: 'snapshot' });
    expect(fired.runId).toMatch(/^nightly@\d{8}T\d{6}\.\d{3}Z-manual$/);
    firstRunId = fired.runId;
    const job = await queues.queue('snapshot').getJob(fired.runId);
    expect(job?.data).toMatchObject({
      runId: fired.runId,
      definitionId: 'nightly',
      kind: 'snapshot',
      trigger: 'manual',
      definition: { id: 'nightly', retention: { slaDomainName: 'Gold' } },
    });

    const second = await paw(['run', 'nightly']);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(
      /nightly was not run: the previous run nightly@.* is still queued .*--allow-overlap/,
    );

    // A disabled definition can still be run by hand, and --allow-overlap overrides skip.
    const forced = await paw(['run', 'nightly', '--allow-overlap']);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toMatch(/^nightly@\S+-manual queued \(queue snapshot\)$/m);
    const disabled = await paw(['run', 'saturday']);
    expect(disabled.code).toBe(0);
    expect(disabled.stdout).toMatch(/queue sla-window/);

    const unknown = await paw(['run', 'nightlly']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /no job definition has id "nightlly" .*did you mean "nightly"\?/,
    );
  });

  it('paw run --wait follows the run to its end (a processor finishes it)', async () => {
    // The earlier manual runs end, which clears the overlap.
    for (;;) {
      const active = await store.runs.activeBefore('nightly', new Date());
      if (active === undefined) break;
      await store.runs.start(active.runId);
      await store.runs.finish(active.runId, {
        status: active.runId === firstRunId ? 'succeeded' : 'canceled',
      });
    }
    const waiting = new PawProcess(['run', 'nightly', '--wait', '--json'], { env, cwd: dir });
    const match = await waiting.waitForStderr(/paw run: (\S+) queued on snapshot; waiting/, 30_000);
    const runId = match[1] ?? '';
    // Play the processor: start, record items, finish.
    await store.runs.start(runId);
    await store.items.record(runId, 'vm-1', {
      status: 'succeeded',
      target: 'vm-1',
      targetName: 'prod-vm-1',
    });
    await store.items.record(runId, 'vm-2', {
      status: 'failed',
      target: 'vm-2',
      targetName: 'prod-vm-2',
      errorCode: 'CLUSTER_UNAVAILABLE',
      errorMessage: 'cluster, "east" is disconnected',
    });
    await store.runs.finish(runId);
    const exit = await waiting.exited;
    expect(exit.code).toBe(1); // the run failed
    const output = JSON.parse(waiting.stdout) as { run: RunRecord };
    expect(output.run).toMatchObject({
      runId,
      status: 'failed',
      counts: { total: 2, succeeded: 1, failed: 1 },
    });
  });

  it('paw runs and paw outcomes read the store; exports parse back', async () => {
    const runs = await paw(['runs', '--definition', 'nightly', '--json']);
    expect(runs.code).toBe(0);
    const listed = JSON.parse(runs.stdout) as RunRecord[];
    expect(listed.map((run) => run.status).sort()).toEqual([
      'canceled',
      'failed',
      'skipped',
      'succeeded',
    ]);
    const table = await paw(['runs', '--status', 'failed']);
    expect(table.stdout).toMatch(/^RUN\s+KIND\s+FIRED \(UTC\)/);
    expect(table.stdout).toMatch(
      /nightly@\S+-manual\s+snapshot\s+\S+ \S+\s+manual\s+failed\s+2\s+1\s+1/,
    );

    const failed = await paw(['outcomes', '--status', 'failed', '--json']);
    const items = JSON.parse(failed.stdout) as ItemRow[];
    expect(items.map((item) => [item.target, item.errorCode])).toEqual([
      ['vm-2', 'CLUSTER_UNAVAILABLE'],
    ]);
    const byName = await paw(['outcomes', '--target', 'PROD-VM-1']);
    expect(byName.stdout).toMatch(/prod-vm-1\s+succeeded/);

    const csvFile = join(dir, 'out.csv');
    const exported = await paw([
      'outcomes',
      '--definition',
      'nightly',
      '--export',
      'csv',
      '--out',
      csvFile,
    ]);
    expect(exported.code).toBe(0);
    expect(exported.stderr).toMatch(/2 items exported to/);
    const [header, ...records] = parseCsv(await readFile(csvFile, 'utf8'));
    expect(header).toEqual([...EXPORT_COLUMNS]);
    const column = (name: string): number =>
      EXPORT_COLUMNS.indexOf(name as (typeof EXPORT_COLUMNS)[number]);
    expect(
      records.map((record) => [record[column('target')], record[column('status')]]).sort(),
    ).toEqual([
      ['vm-1', 'succeeded'],
      ['vm-2', 'failed'],
    ]);
    expect(
      records.find((record) => record[column('target')] === 'vm-2')?.[column('errorMessage')],
    ).toBe('cluster, "east" is disconnected');

    const jsonl = await paw(['outcomes', '--export', 'jsonl', '--status', 'succeeded']);
    const lines = jsonl.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as ItemRow);
    expect(lines.map((line) => line.target)).toEqual(['vm-1']);

    const bad = await paw(['outcomes', '--status', 'broken']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/"broken" is not one of queued, running, succeeded/);
  });

  it('fails with exit 1 and a clear message when Redis is unreachable', async () => {
    const result = await paw(['runs'], { PAW_REDIS_URL: 'redis://127.0.0.1:1' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /paw: cannot reach Redis at redis:\/\/127\.0\.0\.1:1 .*PAW_REDIS_URL/,
    );
  });
});
