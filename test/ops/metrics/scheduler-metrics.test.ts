import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { Shutdown } from '../../../src/shared/shutdown.js';
import { PawMetrics } from '../../../src/ops/metrics/paw-metrics.js';
import { startOpsServer } from '../../../src/ops/ops-server.js';
import { OutcomeQueries } from '../../../src/outcomes/outcome-queries.js';
import { Outcomes } from '../../../src/outcomes/outcomes.js';
import { startSchedulerService } from '../../../src/scheduler/scheduler-service.js';
import { exampleDefinition } from '../../testkit/definitions.js';
import { captureLogs } from '../../testkit/log-capture.js';
import { parsePrometheusText, sumOf } from '../../testkit/prometheus-text.js';
import { connectTestRedis } from '../../testkit/redis-connection.js';
import { opsSettings } from '../ops-settings.js';

describe('scheduler metrics', () => {
  const logs = captureLogs('info');
  const redis = connectTestRedis();
  const shutdowns: Shutdown[] = [];

  afterEach(async () => {
    await Promise.all(shutdowns.splice(0).map((shutdown) => shutdown.run('test over')));
  });

  it('count fires by trigger and result exactly as the outcome store records the runs: on time, caught up, missed, skipped', async () => {
    const settings = await opsSettings('sched-metrics', {
      PAW_SCHEDULER_MISFIRE_GRACE_MS: '1500',
    });
    const prefix = settings.redis.prefix;
    // Two definitions firing every second: one allows overlap (every fire is enqueued), one
    // skips (no worker runs, so its first run stays queued and later fires are skipped).
    const allow = exampleDefinition('snapshot', {
      id: 'every-second',
      schedule: {
        cron: '* * * * * *',
        allowSubMinute: true,
        timezone: 'UTC',
        overlap: 'allow',
        catchUp: '5s',
      },
    });
    const skip = exampleDefinition('snapshot', {
      id: 'skipping',
      schedule: { cron: '* * * * * *', allowSubMinute: true, timezone: 'UTC', overlap: 'skip' },
    });
    // The scheduler was last here 12 s ago: fires 1.5 to 5 s old are caught up, older ones
    // missed (a fire handled within the 1.5 s misfire grace is on time).
    await redis.hset(`${prefix}:scheduler:cursors`, 'every-second', Date.now() - 12_000);

    const metrics = new PawMetrics({ processMetrics: false });
    const shutdown = new Shutdown({ logger: logs.logger });
    shutdowns.push(shutdown);
    await startSchedulerService({
      settings,
      definitions: [allow, skip],
      logger: logs.logger,
      shutdown,
      outcomes: new Outcomes(redis, prefix),
      onFire: metrics.scheduler.onFire,
    });
    const queries = new OutcomeQueries(redis, prefix);
    await expect
      .poll(async () => (await queries.listRuns({ definitionId: 'skipping' })).length, {
        timeout: 20_000,
      })
      .toBeGreaterThanOrEqual(3);
    await shutdown.run('measured');

    const server = await startOpsServer({
      settings,
      logger: logs.logger,
      role: 'test',
      version: 'test',
      metrics,
      port: 0,
    });
    if (server === undefined) throw new Error('no ops server');
    const exposition = parsePrometheusText(
      await (await request(`${server.url}/metrics`)).body.text(),
    );
    await server.close();

    const runs = await queries.listRuns();
    const count = (filter: (run: (typeof runs)[number]) => boolean): number =>
      runs.filter(filter).length;
    const fires = (labels: Record<string, string>): number =>
      sumOf(exposition, 'paw_scheduler_fires_total', labels);

    expect(fires({})).toBe(runs.length);
    expect(fires({ result: 'missed' })).toBe(count((run) => run.status === 'missed'));
    expect(fires({ result: 'missed' })).toBeGreaterThanOrEqual(5);
    expect(fires({ trigger: 'catch-up', result: 'enqueued' })).toBe(
      count((run) => run.trigger === 'catch-up' && run.status === 'queued'),
    );
    expect(fires({ trigger: 'catch-up', result: 'enqueued' })).toBeGreaterThanOrEqual(2);
    expect(fires({ trigger: 'cron', result: 'enqueued' })).toBe(
      count((run) => run.trigger === 'cron' && run.status === 'queued'),
    );
    expect(fires({ result: 'skipped', definition: 'skipping' })).toBe(
      count((run) => run.status === 'skipped'),
    );
    expect(fires({ result: 'skipped' })).toBeGreaterThanOrEqual(2);
  });
});
