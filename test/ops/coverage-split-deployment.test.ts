import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoverageReport } from '../../src/job-kinds/snapshot/coverage/coverage-report.js';
import type { CoverageDigest } from '../../src/job-kinds/snapshot/coverage/coverage-digest.js';
import { isActiveStatus } from '../../src/outcomes/outcome-status.js';
import { findFreePort } from '../../src/shared/free-port.js';
import { eventually } from '../testkit/eventually.js';
import { PawProcess } from '../testkit/paw-process.js';
import { parsePrometheusText, sumOf, type Exposition } from '../testkit/prometheus-text.js';
import { startWorkerTestKit, type WorkerTestKit } from '../testkit/worker-kit.js';
import { WebhookReceiver } from './webhook-receiver.js';

const STATES = ['protected', 'failing', 'stale', 'skipped', 'never'];
const PATH = '/hooks/split';

/**
 * The split deployment as deploy/kubernetes/ runs it: two `paw scheduler` replicas (given the
 * platform credentials) and a `paw worker`, against the simulator (its job failures, its
 * Disconnected cluster). Protection coverage runs in the schedulers and only there:
 * `paw_coverage_workloads` on their /metrics (the same counts on both), none on the worker's;
 * after the night, which ends in the worker, a scheduler brings the night's states (long before
 * its refresh interval), equal to what the
 * scheduler's /api/coverage computes; one morning digest goes out across both replicas.
 */
describe('protection coverage in the split deployment', () => {
  let kit: WorkerTestKit;
  let receiver: WebhookReceiver;
  let schedulers: { paw: PawProcess; base: string }[];
  let worker: { paw: PawProcess; base: string };

  const exposition = async (base: string): Promise<Exposition> =>
    parsePrometheusText(await (await request(`${base}/metrics`)).body.text());
  const gauge = async (base: string, state: string): Promise<number> =>
    sumOf(await exposition(base), 'paw_coverage_workloads', { definition: 'split-snap', state });
  const digests = (): CoverageDigest[] =>
    (receiver.bodies(PATH) as { event?: string }[]).filter(
      (body): body is CoverageDigest => body.event === 'coverage.digest',
    );

  beforeAll(async () => {
    kit = await startWorkerTestKit(
      { workloads: 16, jobs: { failureRate: 0.4, cancelRate: 0.1 } },
      'coverage-split',
    );
    receiver = await WebhookReceiver.start();
    // Due since midnight: each scheduler's first check (at its start) finds the digest due.
    const configFile = join(kit.dir, 'config', 'paw.yaml');
    const config = parse(await readFile(configFile, 'utf8')) as Record<string, unknown>;
    await writeFile(
      configFile,
      stringify({
        ...config,
        coverage: { digest: { enabled: true, at: '00:00', timezone: 'UTC' } },
      }),
    );
    const second = (new Date().getUTCSeconds() + 15) % 60;
    await kit.writeJobs(`id: split-snap
kind: snapshot
schedule: { cron: '${second} * * * * *', timezone: UTC }
targets: { types: [VSPHERE_VM, MSSQL_DATABASE] }
retention: { slaDomainName: Gold }
maxWait: 1m
notify: { webhook: { url: '${receiver.url(PATH)}', allowInternalAddress: true } }
`);
    const start = async (args: string[]): Promise<{ paw: PawProcess; base: string }> => {
      const port = await findFreePort();
      const paw = kit.paw(args, {
        PAW_HTTP_PORT: String(port),
        // Ten minutes: within the test, only a run's end brings a refresh after the start-up one.
        PAW_COVERAGE_REFRESH_INTERVAL_MS: '600000',
      });
      return { paw, base: `http://127.0.0.1:${port}` };
    };
    worker = await start(['worker', '--kinds', 'snapshot']);
    schedulers = [await start(['scheduler']), await start(['scheduler'])];
    await Promise.all([
      worker.paw.waitForStderr(/paw worker: ready/, 60_000),
      ...schedulers.map(({ paw }) => paw.waitForStderr(/paw scheduler: ready/, 60_000)),
    ]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([...(schedulers ?? []), worker].map((process) => process?.paw.stop()));
    await receiver?.stop();
    await kit?.close();
  });

  it('serves paw_coverage_workloads on every scheduler and on no worker', async () => {
    const [a, b] = schedulers.map(({ base }) => base) as [string, string];
    const counts = async (base: string): Promise<number[]> =>
      Promise.all(STATES.map((state) => gauge(base, state)));
    // One computes at start-up, the other serves its counts (at start-up, or at its next look
    // for run ends, 15 s later, if it read before they were stored); the night may end between.
    const workloads = await eventually('the same counts on both schedulers', async () => {
      const [onA, onB] = [await counts(a), await counts(b)];
      const total = onA.reduce((sum, count) => sum + count, 0);
      return total > 0 && onA.join() === onB.join() ? total : undefined;
    });
    expect(workloads).toBeGreaterThan(0);
    for (const { base } of schedulers) {
      const metrics = await exposition(base);
      expect(sumOf(metrics, 'paw_coverage_refresh_interval_seconds')).toBe(600);
      expect(sumOf(metrics, 'paw_coverage_refreshed_timestamp_seconds')).toBeGreaterThan(0);
    }
    const workerMetrics = await exposition(worker.base);
    expect(
      workerMetrics.samples.filter((sample) => sample.name === 'paw_coverage_workloads'),
    ).toEqual([]);
    expect(sumOf(workerMetrics, 'paw_coverage_refresh_interval_seconds')).toBe(0);
  }, 90_000);

  it("counts the night's states after it ends, as the scheduler's /api/coverage does", async () => {
    const base = schedulers[0]?.base ?? '';
    await eventually(
      'the night to end',
      async () => {
        const runs = await kit.queries.listRuns({ definitionId: 'split-snap' });
        return runs.length === 1 && runs.every((run) => !isActiveStatus(run.status));
      },
      { timeoutMs: 90_000, intervalMs: 200 },
    );
    // The run ended in the worker: a scheduler sees it end (within 15 s) and counts it, and the
    // other serves those counts at its next look.
    await eventually(
      'both schedulers to count the night',
      async () => {
        for (const { base: each } of schedulers) if ((await gauge(each, 'never')) !== 0) return;
        return true;
      },
      { timeoutMs: 45_000, intervalMs: 500 },
    );
    const response = await request(`${base}/api/coverage?definition=split-snap`);
    expect(response.statusCode).toBe(200);
    const report = (await response.body.json()) as CoverageReport;
    const counts: Readonly<Record<string, number>> = report.definitions[0]?.counts ?? {};
    for (const { base: each } of schedulers) {
      for (const state of STATES) expect(await gauge(each, state), state).toBe(counts[state] ?? 0);
    }
    expect(await gauge(base, 'protected')).toBeGreaterThan(0);
  }, 150_000);

  it('sends one morning digest across both schedulers', async () => {
    await eventually('the digest', async () => (digests().length > 0 ? true : undefined), {
      timeoutMs: 30_000,
    });
    // Both replicas checked at their start: a second message would have come by now.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(digests().map((digest) => digest.definitionId)).toEqual(['split-snap']);
  });

  it('leaves coverage off, and still starts, in a scheduler given no platform credentials', async () => {
    const { PAW_CREDENTIALS_FILE: _credentials, ...env } = kit.env();
    const port = await findFreePort();
    const paw = new PawProcess(['scheduler'], {
      cwd: kit.dir,
      env: { ...env, PAW_HTTP_PORT: String(port) },
    });
    try {
      await paw.waitForStderr(/paw scheduler: ready/, 60_000);
      expect(paw.stderr).toContain('protection coverage is off in this process');
      const metrics = await exposition(`http://127.0.0.1:${port}`);
      expect(metrics.samples.filter((sample) => sample.name === 'paw_coverage_workloads')).toEqual(
        [],
      );
      expect(sumOf(metrics, 'paw_coverage_refresh_interval_seconds')).toBe(0);
    } finally {
      await paw.stop();
    }
  });
});
