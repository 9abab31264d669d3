import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../src/shared/free-port.js';
import type { ItemRow, RunRecord } from '../../src/outcomes/outcome-records.js';
import { isActiveStatus } from '../../src/outcomes/outcome-status.js';
import { LaneQueue } from '../../src/job-kinds/snapshot/lanes/lane-queue.js';
import { eventually } from '../testkit/eventually.js';
import type { PawProcess } from '../testkit/paw-process.js';
import { parsePrometheusText, sumOf } from '../testkit/prometheus-text.js';
import { startWorkerTestKit, type WorkerTestKit } from '../testkit/worker-kit.js';
import { WebhookReceiver } from './webhook-receiver.js';

const TOKEN = 'hooks-secret-5d1e7b22';

/**
 * `paw start` as a user runs it, against the simulator: three fires of a snapshot definition
 * whose jobs fail at the simulator's (raised) failure rate. Afterwards the process's /metrics
 * must agree with the outcome store, and the webhook must have received one summary per run that
 * failed, with its token in no log and no Redis key.
 */
describe('paw start: metrics, notifications and readiness of a real run', () => {
  let kit: WorkerTestKit;
  let receiver: WebhookReceiver;
  let paw: PawProcess;
  let base: string;
  let runs: RunRecord[];
  const items = new Map<string, ItemRow[]>();

  beforeAll(async () => {
    kit = await startWorkerTestKit(
      { workloads: 24, jobs: { failureRate: 0.3, cancelRate: 0.05 } },
      'ops-start',
    );
    receiver = await WebhookReceiver.start();
    // Three fires, 3 s apart, starting 4 s from now; the next ones are a minute later.
    const now = new Date();
    const seconds = [4, 7, 10]
      .map((offset) => (now.getUTCSeconds() + offset) % 60)
      .sort((a, b) => a - b);
    await kit.writeJobs(`id: ops-snap
kind: snapshot
schedule: { cron: '${seconds.join(',')} * * * * *', allowSubMinute: true, timezone: UTC, overlap: allow }
targets: { types: [VSPHERE_VM, MSSQL_DATABASE] }
retention: { slaDomainName: Gold }
maxWait: 1m
notify: { webhook: { url: '${receiver.url(`/hooks/${TOKEN}`)}', allowInternalAddress: true } }
`);
    const port = await findFreePort();
    base = `http://127.0.0.1:${port}`;
    paw = kit.paw(['start'], { PAW_HTTP_PORT: String(port), PAW_LOG_LEVEL: 'debug' });
    await paw.waitForStderr(/paw start: ready/, 60_000);

    await eventually(
      'the runs to end',
      async () => {
        runs = await kit.queries.listRuns({ definitionId: 'ops-snap' });
        return runs.length === 3 && runs.every((run) => !isActiveStatus(run.status));
      },
      { timeoutMs: 90_000, intervalMs: 200, detail: () => JSON.stringify(runs) },
    );
    for (const run of runs) items.set(run.runId, await kit.items(run.runId));
    // A run ends in its last lane's write; that lane's job completes (and is counted) after it.
    await eventually('the lane jobs to complete', async () => {
      const counts = await kit.queues.queue('snapshot').getJobCounts('active', 'wait', 'delayed');
      return Object.values(counts).every((count) => count === 0) ? true : undefined;
    });
  }, 180_000);

  afterAll(async () => {
    await paw?.stop('SIGTERM');
    await receiver?.stop();
    await kit?.close();
  });

  it('serves /metrics whose counters equal the outcome store', async () => {
    const exposition = parsePrometheusText(await (await request(`${base}/metrics`)).body.text());
    for (const status of ['succeeded', 'failed', 'canceled']) {
      expect(sumOf(exposition, 'paw_runs_finished_total', { definition: 'ops-snap', status })).toBe(
        runs.filter((run) => run.status === status).length,
      );
    }
    expect(sumOf(exposition, 'paw_runs_finished_total')).toBe(3);
    const allItems = [...items.values()].flat();
    for (const status of ['succeeded', 'failed', 'canceled', 'skipped', 'timed-out']) {
      expect(sumOf(exposition, 'paw_run_items_total', { kind: 'snapshot', status }), status).toBe(
        allItems.filter((item) => item.status === status).length,
      );
    }
    expect(allItems.some((item) => item.status === 'failed')).toBe(true);
    expect(sumOf(exposition, 'paw_snapshot_wait_seconds_count')).toBe(
      allItems.filter((item) => item.startedAt !== undefined && item.finishedAt !== undefined)
        .length,
    );
    expect(
      sumOf(exposition, 'paw_scheduler_fires_total', {
        definition: 'ops-snap',
        result: 'enqueued',
      }),
    ).toBe(3);
    expect(
      sumOf(exposition, 'paw_jobs_total', { kind: 'snapshot', job: 'run', result: 'completed' }),
    ).toBe(3);
    // Each lane of each run (the count its run record holds) completed its job once.
    let lanes = 0;
    const laneQueue = new LaneQueue(kit.outcomes.redis, kit.outcomes.keys, kit.outcomes.items);
    for (const run of runs) lanes += await laneQueue.count(run.runId, 0);
    expect(lanes).toBeGreaterThanOrEqual(3);
    expect(
      sumOf(exposition, 'paw_jobs_total', {
        kind: 'snapshot',
        job: 'snapshot-lane',
        result: 'completed',
      }),
    ).toBe(lanes);
    expect(
      sumOf(exposition, 'paw_platform_requests_total', {
        operation: 'takeSnapshot',
        status: '202',
      }),
    ).toBe(allItems.filter((item) => item.platformJobId !== undefined).length);
    expect(sumOf(exposition, 'paw_build_info', { role: 'start' })).toBe(1);
  });

  it('posts one summary per failed run to the webhook, with the token nowhere else', async () => {
    const failed = runs.filter((run) => run.status !== 'succeeded');
    expect(failed.length).toBeGreaterThan(0);
    const path = `/hooks/${TOKEN}`;
    await expect.poll(() => receiver.bodies(path).length, { timeout: 30_000 }).toBe(failed.length);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const bodies = receiver.bodies(path) as { run: { runId: string; status: string } }[];
    expect(bodies.map((body) => body.run.runId).sort()).toEqual(
      failed.map((run) => run.runId).sort(),
    );
    const exposition = parsePrometheusText(await (await request(`${base}/metrics`)).body.text());
    expect(sumOf(exposition, 'paw_notifications_total', { result: 'sent' })).toBe(failed.length);
    expect(sumOf(exposition, 'paw_notifications_total', { result: 'not-needed' })).toBe(
      3 - failed.length,
    );
    expect(paw.stderr).not.toContain(TOKEN);
    expect(await kit.dumpRedis()).not.toContain(TOKEN);
  });

  it('is live and ready, and its dashboard shows the definition and its last run', async () => {
    const health = await request(`${base}/healthz`);
    expect(await health.body.json()).toMatchObject({ status: 'ok', role: 'start' });
    const ready = await request(`${base}/readyz`);
    expect(ready.statusCode).toBe(200);
    expect(await ready.body.json()).toMatchObject({
      checks: { redis: { status: 'ok' }, platform: { status: 'ok' } },
    });
    const definitions = (await (await request(`${base}/api/definitions`)).body.json()) as {
      id: string;
      lastRun?: { runId: string };
    }[];
    expect(definitions.map((definition) => definition.id)).toEqual(['ops-snap']);
    // The schedule fires again every minute: on a slow machine a fourth run may have begun since
    // the three ended, and then it is the last one. Run ids sort by fire time.
    const lastRunId = definitions[0]?.lastRun?.runId ?? '';
    const listed = await kit.queries.listRuns({ definitionId: 'ops-snap' });
    expect(listed.map((run) => run.runId)).toContain(lastRunId);
    expect(lastRunId >= (runs[0]?.runId ?? '')).toBe(true);
    expect(paw.stderr).toMatch(/paw start: dashboard http:\/\/127\.0\.0\.1:\d+\//);
  });
});
