import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobDefinitionSchema } from '../../../../src/definitions/job-definition.js';
import type { CoverageReport } from '../../../../src/job-kinds/snapshot/coverage/coverage-report.js';
import { startCoverageRefresher } from '../../../../src/job-kinds/snapshot/coverage/coverage-refresher.js';
import { PawMetrics } from '../../../../src/ops/metrics/paw-metrics.js';
import { createPlatformClient } from '../../../../src/platform/platform-client.js';
import { Shutdown } from '../../../../src/shared/shutdown.js';
import { startProcessorHarness, type ProcessorHarness } from '../../processor-harness.js';
import { isActiveStatus } from '../../../../src/outcomes/outcome-status.js';
import { findFreePort } from '../../../../src/shared/free-port.js';
import { eventually } from '../../../testkit/eventually.js';
import type { PawProcess } from '../../../testkit/paw-process.js';
import { parsePrometheusText, sumOf } from '../../../testkit/prometheus-text.js';
import { startWorkerTestKit, type WorkerTestKit } from '../../../testkit/worker-kit.js';

const STATES = ['protected', 'failing', 'stale', 'skipped', 'never'];

/**
 * `paw start` with one snapshot night against the simulator (its job failures, its Disconnected
 * cluster): `paw_coverage_workloads` shows every workload `never` reached at start-up, and the
 * night's states as soon as its run ends (the refresh interval, 5 min, never comes), equal to
 * what /api/coverage computes.
 */
describe('paw_coverage_workloads in paw start', () => {
  let kit: WorkerTestKit;
  let paw: PawProcess;
  let base: string;

  const gauge = async (state: string): Promise<number> => {
    const text = await (await request(`${base}/metrics`)).body.text();
    return sumOf(parsePrometheusText(text), 'paw_coverage_workloads', {
      definition: 'cov-snap',
      state,
    });
  };

  beforeAll(async () => {
    kit = await startWorkerTestKit(
      { workloads: 16, jobs: { failureRate: 0.4, cancelRate: 0.1 } },
      'coverage-metrics',
    );
    const second = (new Date().getUTCSeconds() + 8) % 60;
    await kit.writeJobs(`id: cov-snap
kind: snapshot
schedule: { cron: '${second} * * * * *', timezone: UTC }
targets: { types: [VSPHERE_VM, MSSQL_DATABASE] }
retention: { slaDomainName: Gold }
maxWait: 1m
`);
    const port = await findFreePort();
    base = `http://127.0.0.1:${port}`;
    paw = kit.paw(['start'], { PAW_HTTP_PORT: String(port) });
    await paw.waitForStderr(/paw start: ready/, 60_000);
  }, 90_000);

  afterAll(async () => {
    await paw?.stop('SIGTERM');
    await kit?.close();
  });

  it('counts every workload never reached (or skipped) before the night, and its states once its run ends', async () => {
    await eventually('the start-up refresh', async () =>
      (await gauge('never')) > 0 ? true : undefined,
    );
    let before = 0;
    for (const state of STATES) before += await gauge(state);
    expect(await gauge('protected')).toBe(0);

    await eventually(
      'the night to end',
      async () => {
        const runs = await kit.queries.listRuns({ definitionId: 'cov-snap' });
        return runs.length === 1 && runs.every((run) => !isActiveStatus(run.status));
      },
      { timeoutMs: 90_000, intervalMs: 200 },
    );
    await eventually('the refresh after the run end', async () =>
      (await gauge('never')) === 0 ? true : undefined,
    );
    const report = (await (
      await request(`${base}/api/coverage?definition=cov-snap`)
    ).body.json()) as CoverageReport;
    const counts: Readonly<Record<string, number>> = report.definitions[0]?.counts ?? {};
    for (const state of STATES) {
      expect(await gauge(state), state).toBe(counts[state]);
    }
    expect(STATES.reduce((sum, state) => sum + (counts[state] ?? 0), 0)).toBe(before);
    expect(await gauge('protected')).toBeGreaterThan(0);
    expect((await gauge('failing')) + (await gauge('skipped'))).toBeGreaterThan(0);
  }, 150_000);
});

/**
 * Two replicas of a process with workers: per interval one computes coverage on the platform,
 * the other serves the counts it stored, and both report the same numbers.
 */
describe('coverage refresh across replicas', () => {
  let harness: ProcessorHarness;
  const shutdowns: Shutdown[] = [];

  beforeAll(async () => {
    harness = await startProcessorHarness({ label: 'coverage-turns', sim: { seed: 7 } });
  }, 60_000);
  afterAll(async () => {
    for (const shutdown of shutdowns) await shutdown.run('test over');
    await harness?.close();
  });

  async function replica(): Promise<{
    metrics: PawMetrics;
    calls: () => number;
    refresh: (force: boolean) => Promise<void>;
  }> {
    let calls = 0;
    const platform = await createPlatformClient({
      settings: harness.settings,
      logger: harness.logs.logger,
      observer: { onCall: () => (calls += 1) },
    });
    const shutdown = new Shutdown({ logger: harness.logs.logger });
    shutdowns.push(shutdown);
    shutdown.add('platform client', () => platform.close());
    const metrics = new PawMetrics({ processMetrics: false });
    const definition = jobDefinitionSchema.parse({
      id: 'turns',
      kind: 'snapshot',
      schedule: { cron: '0 1 * * *' },
      targets: { types: ['VSPHERE_VM'] },
      retention: { slaDomainName: 'Gold' },
    });
    const { refresh } = startCoverageRefresher({
      settings: harness.settings,
      redis: harness.redis,
      coverage: harness.outcomes.coverage,
      queries: harness.outcomes.queries,
      platform,
      definitions: () => [definition],
      metrics: metrics.coverage,
      logger: harness.logs.logger,
      shutdown,
    });
    return { metrics, calls: () => calls, refresh };
  }

  it('computes once per interval and serves the same counts on every replica', async () => {
    const a = await replica();
    await a.refresh(false); // its start-up refresh already took the turn, or this does
    const b = await replica();
    await b.refresh(false);
    expect(a.calls()).toBeGreaterThan(0);
    expect(b.calls()).toBe(0);
    const never = async (metrics: PawMetrics): Promise<number> =>
      sumOf(parsePrometheusText(await metrics.text()), 'paw_coverage_workloads', {
        definition: 'turns',
        state: 'never',
      });
    expect(await never(a.metrics)).toBeGreaterThan(0);
    expect(await never(b.metrics)).toBe(await never(a.metrics));
    // A run's end computes whatever the turn.
    await b.refresh(true);
    expect(b.calls()).toBeGreaterThan(0);
  });

  it('keeps the last values and their time when a refresh fails, and warns naming the problem', async () => {
    const replicaA = await replica();
    await replicaA.refresh(true);
    const refreshedAt = async (): Promise<number> =>
      sumOf(
        parsePrometheusText(await replicaA.metrics.text()),
        'paw_coverage_refreshed_timestamp_seconds',
      );
    const before = await refreshedAt();
    expect(before).toBeGreaterThan(0);
    expect(
      sumOf(
        parsePrometheusText(await replicaA.metrics.text()),
        'paw_coverage_refresh_interval_seconds',
      ),
    ).toBe(harness.settings.coverage.refreshIntervalMs / 1000);
    await harness.control('PUT', '/_sim/faults', {
      default: { errorRate: 1, errorStatuses: [503] },
    });
    try {
      await replicaA.refresh(true);
    } finally {
      await harness.control('PUT', '/_sim/faults', { operations: {} });
    }
    expect(await refreshedAt()).toBe(before);
    const warning = harness.logs
      .records()
      .find(
        (record) =>
          record['level'] === 40 &&
          String(record['msg']).startsWith('could not refresh paw_coverage_workloads'),
      );
    expect(warning?.['msg']).toMatch(/503/);
    expect(warning?.['refreshedAt']).toBe(new Date(before * 1000).toISOString());
  });
});
