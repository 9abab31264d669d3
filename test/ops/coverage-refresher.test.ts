import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoverageReport } from '../../src/job-kinds/snapshot/coverage.js';
import { isActiveStatus } from '../../src/outcomes/outcome-status.js';
import { findFreePort } from '../../src/shared/free-port.js';
import { eventually } from '../testkit/eventually.js';
import type { PawProcess } from '../testkit/paw-process.js';
import { parsePrometheusText, sumOf } from '../testkit/prometheus-text.js';
import { startWorkerTestKit, type WorkerTestKit } from '../testkit/worker-kit.js';

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
