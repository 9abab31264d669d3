import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../../src/config/load-settings.js';
import type { Settings } from '../../../src/config/settings-schema.js';
import { PawMetrics } from '../../../src/ops/metrics/paw-metrics.js';
import { startOpsServer, type OpsServer } from '../../../src/ops/ops-server.js';
import { OutcomeQueries } from '../../../src/outcomes/outcome-queries.js';
import { Outcomes } from '../../../src/outcomes/outcomes.js';
import { isPlatformError } from '../../../src/platform/http/platform-errors.js';
import { waitForSnapshotJob } from '../../../src/platform/jobs/wait-for-snapshot-job.js';
import {
  createPlatformClient,
  type PlatformClient,
} from '../../../src/platform/platform-client.js';
import type { SimulatorHandle } from '../../../src/simulator/simulator.js';
import { captureLogs } from '../../testkit/log-capture.js';
import { parsePrometheusText, sumOf, type Exposition } from '../../testkit/prometheus-text.js';
import { connectTestRedis, testRedisUrl, uniquePrefix } from '../../testkit/redis-connection.js';
import { startSimulatorKit, type SimulatorKit } from '../../testkit/simulator-kit.js';

/**
 * The metrics of a process that ran real snapshot runs against the simulator: the page must be
 * valid Prometheus text, and its counters must agree with the outcome store (runs and items)
 * and with the simulator's own request statistics (platform calls, 429s).
 */
describe('/metrics', () => {
  const logs = captureLogs('info');
  const redis = connectTestRedis();
  let sim: SimulatorHandle;
  let kit: SimulatorKit;
  let dir: string;
  let settings: Settings;
  let metrics: PawMetrics;
  let platform: PlatformClient;
  let server: OpsServer;

  beforeAll(async () => {
    kit = await startSimulatorKit(
      {
        timeScale: 2000,
        jobs: { failureRate: 0.3, cancelRate: 0.1 },
        // A burst of 429s that the client's retries ride out: they must show up as 429s.
        faults: { operations: { getWorkload: { tooManyRequestsRate: 1, times: 3 } } },
      },
      'metrics',
    );
    sim = kit.sim;
    dir = kit.dir;
    const credentialsFile = kit.credentialsFile;
    settings = (
      await loadSettings({
        cwd: dir,
        env: {
          PAW_REDIS_URL: testRedisUrl(),
          PAW_REDIS_PREFIX: uniquePrefix('metrics'),
          PAW_CREDENTIALS_FILE: credentialsFile,
          PAW_PLATFORM_RETRY_BASE_DELAY_MS: '10',
        },
      })
    ).settings;
    metrics = new PawMetrics({ version: 'test', role: 'test' });
    platform = await createPlatformClient({
      settings,
      logger: logs.logger,
      observer: metrics.platform.observer(),
    });
    const started = await startOpsServer({
      settings,
      logger: logs.logger,
      role: 'test',
      version: 'test',
      metrics,
      platform,
      port: 0,
    });
    if (started === undefined) throw new Error('the ops server did not start');
    server = started;
  });

  afterAll(async () => {
    await server.close();
    await platform.close();
    await kit.close();
    redis.disconnect();
  });

  /** What a snapshot processor does, in process: trigger, wait, record; then finish the run. */
  async function snapshotRun(definitionId: string, workloadCount: number): Promise<string> {
    const store = new Outcomes(redis, settings.redis.prefix, metrics.outcomes.observer());
    const runId = `${definitionId}@20250101T0100${String(workloadCount).padStart(2, '0')}Z`;
    await store.runs.create({
      runId,
      definitionId,
      kind: 'snapshot',
      fireTime: new Date(),
      trigger: 'manual',
      status: 'queued',
    });
    await store.runs.start(runId);
    const workloads = [];
    for await (const workload of platform.rest.workloads.list({ type: 'VSPHERE_VM' })) {
      workloads.push(workload);
      if (workloads.length >= workloadCount) break;
    }
    await Promise.all(
      workloads.map(async (listed) => {
        const workload = await platform.rest.workloads.get(listed.id);
        const startedAt = new Date();
        await store.items.record(runId, workload.id, {
          status: 'running',
          target: workload.id,
          targetName: workload.name,
          targetType: workload.type,
          action: 'snapshot',
          startedAt,
        });
        try {
          const trigger = await platform.rest.workloads.takeSnapshot(workload);
          const result = await waitForSnapshotJob({
            read: (signal) => platform.rest.workloads.readSnapshotJob(trigger.tracking, signal),
            initial: trigger.job,
            nextDelay: () => 20,
          });
          const phase = result.job.phase;
          await store.items.record(runId, workload.id, {
            status:
              phase === 'succeeded' ? 'succeeded' : phase === 'canceled' ? 'canceled' : 'failed',
            platformJobId: result.job.id,
            finishedAt: new Date(),
            ...(result.job.errorMessage === undefined
              ? {}
              : { errorMessage: result.job.errorMessage }),
          });
        } catch (error) {
          await store.items.record(runId, workload.id, {
            status: 'failed',
            finishedAt: new Date(),
            errorCode: isPlatformError(error) ? (error.code ?? error.kind) : 'unexpected',
          });
        }
      }),
    );
    await store.runs.finish(runId);
    // A repeated finish (a retried job) must not be counted twice.
    await store.runs.finish(runId);
    return runId;
  }

  async function scrape(): Promise<Exposition> {
    const response = await request(`${server.url}/metrics`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return parsePrometheusText(await response.body.text());
  }

  it('is Prometheus text whose run and item counters equal the outcome store, and whose platform counters equal the simulator', async () => {
    await snapshotRun('nightly-a', 12);
    await snapshotRun('nightly-b', 7);

    const exposition = await scrape();
    expect(exposition.types.get('paw_runs_finished_total')).toBe('counter');
    expect(exposition.types.get('paw_snapshot_wait_seconds')).toBe('histogram');

    // Runs and items: exactly what the outcome store holds.
    const runs = await new OutcomeQueries(redis, settings.redis.prefix).listRuns();
    expect(runs).toHaveLength(2);
    for (const run of runs) {
      expect(
        sumOf(exposition, 'paw_runs_finished_total', {
          definition: run.definitionId,
          kind: 'snapshot',
          status: run.status,
        }),
      ).toBe(1);
    }
    expect(sumOf(exposition, 'paw_runs_finished_total')).toBe(2);
    const total = (field: 'succeeded' | 'failed' | 'canceled' | 'timedOut'): number =>
      runs.reduce((sum, run) => sum + run.counts[field], 0);
    expect(sumOf(exposition, 'paw_run_items_total', { status: 'succeeded' })).toBe(
      total('succeeded'),
    );
    expect(sumOf(exposition, 'paw_run_items_total', { status: 'failed' })).toBe(total('failed'));
    expect(sumOf(exposition, 'paw_run_items_total', { status: 'canceled' })).toBe(
      total('canceled'),
    );
    expect(sumOf(exposition, 'paw_run_items_total')).toBe(19);
    // The simulator's failure rate makes some snapshots fail: the test means something.
    expect(total('failed') + total('canceled')).toBeGreaterThan(0);
    expect(sumOf(exposition, 'paw_snapshot_wait_seconds_count')).toBe(19);

    // Platform calls: every REST request the simulator saw, by operation and status.
    const stats = sim.stats() as unknown as {
      byOperationAndStatus: Record<string, Record<string, number>>;
    };
    for (const operation of [
      'listWorkloads',
      'getWorkload',
      'takeSnapshot',
      'getSnapshotJobStatus',
    ]) {
      const byStatus = stats.byOperationAndStatus[operation] ?? {};
      expect(Object.keys(byStatus).length).toBeGreaterThan(0);
      for (const [status, count] of Object.entries(byStatus)) {
        expect(sumOf(exposition, 'paw_platform_requests_total', { operation, status })).toBe(count);
      }
    }
    expect(sumOf(exposition, 'paw_platform_rate_limited_total', { operation: 'getWorkload' })).toBe(
      3,
    );
    expect(sumOf(exposition, 'paw_snapshot_poll_duration_seconds_count')).toBe(
      Object.values(stats.byOperationAndStatus['getSnapshotJobStatus'] ?? {}).reduce(
        (sum, count) => sum + count,
        0,
      ),
    );
    expect(sumOf(exposition, 'paw_platform_token_refreshes_total', { result: 'success' })).toBe(1);
    expect(sumOf(exposition, 'paw_platform_request_duration_seconds_count')).toBe(
      sumOf(exposition, 'paw_platform_requests_total'),
    );

    // Queue depths are read from Redis at scrape time.
    expect(sumOf(exposition, 'paw_queue_depth_up')).toBe(1);
    expect(
      exposition.samples
        .filter((sample) => sample.name === 'paw_queue_jobs')
        .map((s) => s.labels['queue']),
    ).toEqual(expect.arrayContaining(['snapshot', 'sla-window', 'rotate-secret', 'notify']));
    // And the process metrics are there.
    expect(exposition.types.get('process_cpu_user_seconds_total')).toBe('counter');
  });
});
