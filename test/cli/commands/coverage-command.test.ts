import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobDefinition } from '../../../src/definitions/job-definition.js';
import type { CoverageReport } from '../../../src/job-kinds/snapshot/coverage/coverage-report.js';
import type { RunRecord } from '../../../src/outcomes/outcome-records.js';
import type { JobScheduleReport } from '../../../src/simulator/job-schedule-report.js';
import type { ProcessorHarness } from '../../job-kinds/processor-harness.js';
import {
  fireNights,
  nightlyDefinition,
  startCoverageHarness,
  startCoverageOpsServer,
} from '../../job-kinds/snapshot/coverage-nights.js';
import { json } from '../cli-simulator.js';
import { runPaw, type PawResult } from '../../testkit/paw-process.js';

/**
 * The held-out check: three nights of one definition against the simulator (its job
 * failures and cancellations, its Disconnected cluster), then `paw coverage --json` compared
 * with the simulator's own record of every job it ran (`/_sim/jobs`).
 */
describe('paw coverage after three nights, against the simulator', () => {
  let harness: ProcessorHarness;
  let definition: JobDefinition;
  let jobsDir: string;
  const nights: RunRecord[] = [];

  const paw = (args: readonly string[]): Promise<PawResult> =>
    runPaw(args, {
      cwd: harness.dir,
      env: {
        PAW_CREDENTIALS_FILE: harness.credentialsFile,
        PAW_REDIS_URL: harness.settings.redis.url,
        PAW_REDIS_PREFIX: harness.settings.redis.prefix,
        PAW_JOBS_DIR: jobsDir,
      },
    });

  beforeAll(async () => {
    harness = await startCoverageHarness('coverage');
    definition = nightlyDefinition();
    jobsDir = harness.dir;
    await writeFile(join(jobsDir, 'nightly.yaml'), JSON.stringify(definition));
    await harness.startWorker('snapshot');
    nights.push(...(await fireNights(harness, [definition, definition, definition])));
  }, 120_000);
  afterAll(() => harness.close());

  it("agrees with the simulator's record of every job: states, streaks, skipped clusters, exit 1", async () => {
    const result = await paw(['coverage', 'nightly', '--json']);
    expect(result.stderr).toBe('');
    const report = json<CoverageReport>(result);
    expect(result.code).toBe(1);
    const [coverage] = report.definitions;
    expect(coverage?.definitionId).toBe('nightly');

    const sim = (await harness.control('GET', '/_sim/jobs')) as JobScheduleReport;
    const disconnected = new Set(
      harness.sim.clusters.filter((c) => c.connectionState === 'Disconnected').map((c) => c.id),
    );
    const selected = (await harness.platform.api.workloads.list().toArray()).filter((w) =>
      ['VSPHERE_VM', 'MSSQL_DATABASE'].includes(w.kind ?? ''),
    );
    expect(coverage?.workloads.map((row) => row.workloadId).sort()).toEqual(
      selected.map((w) => w.id).sort(),
    );

    // Each night's outcome per workload, from the platform's side: its last job in that run.
    const outcomeOn = (night: RunRecord, workloadId: string): string => {
      const from = Date.parse(night.startedAt ?? night.createdAt);
      const to = Date.parse(night.finishedAt ?? new Date().toISOString());
      const jobs = sim.jobs.filter(
        (job) => job.workloadId === workloadId && job.triggeredAt >= from && job.triggeredAt <= to,
      );
      return jobs.at(-1)?.outcome ?? 'no job';
    };
    const states = new Map<string, number>();
    for (const workload of selected) {
      const row = coverage?.workloads.find((r) => r.workloadId === workload.id);
      states.set(row?.state ?? '', (states.get(row?.state ?? '') ?? 0) + 1);
      if (disconnected.has(workload.clusterId ?? '')) {
        expect(sim.jobs.filter((job) => job.workloadId === workload.id)).toEqual([]);
        expect(row).toMatchObject({
          state: 'skipped',
          failureStreak: 3,
          lastRunId: nights[2]?.runId,
        });
        expect(row?.reason).toMatch(/is Disconnected/);
        // Since the first night's run skipped it.
        expect(Date.parse(row?.skippedSince ?? '')).toBeLessThanOrEqual(
          Date.parse(nights[0]?.finishedAt ?? ''),
        );
        continue;
      }
      const outcomes = nights.map((night) => outcomeOn(night, workload.id));
      let streak = 0;
      while (streak < 3 && outcomes[2 - streak] !== 'SUCCEEDED') streak++;
      expect({
        workload: workload.id,
        outcomes,
        state: row?.state,
        streak: row?.failureStreak,
      }).toEqual({
        workload: workload.id,
        outcomes,
        state: outcomes[2] === 'SUCCEEDED' ? 'protected' : 'failing',
        streak,
      });
      expect(row?.lastRunId).toBe(nights[2]?.runId);
      if (outcomes.includes('SUCCEEDED')) expect(row?.lastSuccessAt).toEqual(expect.any(String));
      else expect(row?.lastSuccessAt).toBeNull();
    }
    // The check means something: each state the nights can give is there.
    expect(states.get('protected')).toBeGreaterThan(0);
    expect(states.get('failing')).toBeGreaterThan(0);
    expect(states.get('skipped')).toBeGreaterThan(0);
  });

  it('/api/coverage answers what the command prints, from the same computation', async () => {
    const server = await startCoverageOpsServer(harness, [definition]);
    try {
      const answer = await fetch(`${server.url}/api/coverage?definition=nightly`);
      expect(answer.status).toBe(200);
      const api = (await answer.json()) as CoverageReport;
      const cli = json<CoverageReport>(await paw(['coverage', 'nightly', '--json']));
      const rows = (report: CoverageReport) =>
        report.definitions.map((d) => ({ ...d, workloads: [...d.workloads] }));
      expect(api.allProtected).toBe(false);
      expect(rows(api)).toEqual(rows(cli));
      expect((await fetch(`${server.url}/api/coverage?definition=nope`)).status).toBe(404);
      expect((await fetch(`${server.url}/api/coverage?stale=soon`)).status).toBe(400);
    } finally {
      await server.close();
    }
  });

  it('/api/coverage?stale= answers 300 distinct values from one computed report, as the command judges', async () => {
    const server = await startCoverageOpsServer(harness, [definition]);
    const platformRequests = async () =>
      ((await (await fetch(`${harness.sim.baseUrl}/_sim/stats`)).json()) as { requests: number })
        .requests;
    try {
      // The server judges `stale` as of its report's time, the command as of its own: at 1s they
      // agree only once every success is over a second old when the report is made (just after
      // the nights, on a busy machine, one was not: the report said protected, the command stale).
      const everyone = json<CoverageReport>(await paw(['coverage', '--stale', '30d', '--json']));
      const lastSuccess = Math.max(
        ...(everyone.definitions[0]?.workloads ?? []).map((row) =>
          row.lastSuccessAt === null ? 0 : Date.parse(row.lastSuccessAt),
        ),
      );
      const oldEnough = lastSuccess + 1_500 - Date.now();
      if (oldEnough > 0) await new Promise((resolve) => setTimeout(resolve, oldEnough));
      const before = await platformRequests();
      expect((await fetch(`${server.url}/api/coverage?stale=1h`)).status).toBe(200);
      const oneReport = (await platformRequests()) - before;
      expect(oneReport, 'one report lists the platform').toBeGreaterThan(0);
      for (let minutes = 61; minutes < 360; minutes += 1) {
        const answer = await fetch(`${server.url}/api/coverage?stale=${minutes}m`);
        expect(answer.status).toBe(200);
        await answer.body?.cancel();
      }
      // Every answer came from at most two computations (the report is reused for 30 s).
      expect((await platformRequests()) - before).toBeLessThanOrEqual(2 * oneReport);

      // Judged from that one report, each state is what `paw coverage --stale` computes.
      const states = (report: CoverageReport) =>
        new Map(report.definitions[0]?.workloads.map((row) => [row.workloadId, row.state]));
      for (const stale of ['1s', '30d']) {
        const api = (await (
          await fetch(`${server.url}/api/coverage?stale=${stale}`)
        ).json()) as CoverageReport;
        const cli = json<CoverageReport>(await paw(['coverage', '--stale', stale, '--json']));
        expect(states(api), `--stale ${stale}`).toEqual(states(cli));
        expect([...states(api).values()]).toContain(stale === '1s' ? 'stale' : 'protected');
        expect(api.definitions[0]?.counts).toEqual(cli.definitions[0]?.counts);
      }
    } finally {
      await server.close();
    }
  });

  it('prints a table of what is not protected, and exits 2 on bad usage', async () => {
    const table = await paw(['coverage']);
    expect(table.code).toBe(1);
    expect(table.stdout).toMatch(/^nightly: \d+ workloads: \d+ protected, \d+ failing, /m);
    expect(table.stdout).toMatch(/^STATE\s+STREAK\s+NAME\s+WORKLOAD/m);
    const everyone = await paw(['coverage', '--stale', 'soon']);
    expect(everyone.code).toBe(2);
    const unknown = await paw(['coverage', 'nightly-vm']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no job definition has id "nightly-vm" .*known ids: nightly/);
  });

  it('--uncovered lists the VMs and databases no definition covers', async () => {
    await writeFile(
      join(jobsDir, 'nightly.yaml'),
      JSON.stringify({ ...definition, targets: { types: ['VSPHERE_VM'] } }),
    );
    try {
      const result = await paw(['coverage', '--uncovered', '--json']);
      expect(result.code).toBe(1);
      const { uncovered } = json<{ uncovered: { id: string; type: string }[] }>(result);
      const databases = (await harness.platform.api.workloads.list().toArray()).filter(
        (w) => w.kind === 'MSSQL_DATABASE',
      );
      expect(uncovered.map((w) => w.id).sort()).toEqual(databases.map((w) => w.id).sort());
    } finally {
      await writeFile(join(jobsDir, 'nightly.yaml'), JSON.stringify(definition));
    }
  });
});
