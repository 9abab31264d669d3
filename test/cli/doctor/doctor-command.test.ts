import { execFileSync } from 'node:child_process';
import { mkdir, readFile, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../../src/config/load-settings.js';
import { json, startCliSimulator, type CliSimulator } from '../cli-simulator.js';

interface DoctorJson {
  ok: boolean;
  api: string;
  checks: { id: string; status: string; detail: string; fix?: string; blocks: boolean }[];
  recommendations: string[];
}

const byId = (report: DoctorJson, id: string) => report.checks.find((entry) => entry.id === id);

/** `paw doctor` as a new user runs it, against each platform the simulator can be. */
describe('paw doctor', () => {
  describe('on a platform shaped as paw expects', () => {
    let t: CliSimulator;
    beforeAll(async () => {
      t = await startCliSimulator({
        seed: 6,
        timeScale: 3000,
        jobs: { failureRate: 0, cancelRate: 0 },
      });
    });
    afterAll(() => t.close());

    it('passes every check, read-only, with exit 0, and says so as JSON', async () => {
      const before = t.sim.stats().snapshotJobs.total;
      const result = await t.paw(['doctor', '--json']);
      expect(result.code, result.stderr).toBe(0);
      const report = json<DoctorJson>(result);
      expect(report.ok).toBe(true);
      expect(report.api).toBe('rest');
      expect(report.checks.filter((entry) => entry.status === 'fail')).toEqual([]);
      for (const id of [
        'credentials',
        'token',
        'graphql.snapshot',
        'rest.reachable',
        'rest.route.getWorkload',
      ]) {
        expect(byId(report, id)?.status, id).toBe('ok');
      }
      expect(byId(report, 'rest.reference')?.detail).toMatch(
        /every route paw uses is where paw looks/,
      );
      // Read-only: nothing was triggered.
      expect(t.sim.stats().snapshotJobs.total).toBe(before);
      expect(result.stderr).toMatch(/✔ credentials/);
    });

    it('with --allow-writes, takes one snapshot and pauses and resumes an SLA Domain on the named cluster', async () => {
      const vm = t.fixtures.workloads.samples.vsphereVm ?? '';
      const gold = t.fixtures.slaDomains.find((sla) => sla.name === 'Gold')?.id ?? '';
      const cluster =
        t.fixtures.clusters.find((entry) => entry.connectionState === 'Connected')?.id ?? '';
      const result = await t.paw([
        'doctor',
        '--json',
        '--allow-writes',
        '--workload',
        vm,
        '--sla',
        gold,
        '--cluster',
        cluster,
      ]);
      expect(result.code, result.stderr).toBe(0);
      const report = json<DoctorJson>(result);
      expect(byId(report, 'writes.snapshot')).toMatchObject({ status: 'ok' });
      expect(byId(report, 'writes.pause')).toMatchObject({
        status: 'ok',
        detail: 'read back PAUSED, then NOT_PAUSED',
      });
      expect(t.sim.stats().snapshotTriggers[vm]).toBe(1);

      const usage = await t.paw(['doctor', '--allow-writes']);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toMatch(/--allow-writes needs --workload ID and --sla ID/);
    });

    it('checks the job definitions against the platform', async () => {
      const jobs = join(t.dir, 'definitions');
      await mkdir(jobs, { recursive: true });
      await writeFile(
        join(jobs, 'defs.yaml'),
        [
          'id: good\nkind: snapshot\nschedule: { cron: "0 1 * * *" }\ntargets: { types: [VSPHERE_VM] }\nretention: { slaDomainName: Gold }',
          'id: databases\nkind: snapshot\nschedule: { cron: "0 1 * * *" }\ntargets: { types: [MSSQL_DATABASE] }\nretention: { slaDomainName: Archive }',
          'id: window\nkind: sla-window\nschedule: { cron: "0 22 * * 6", duration: 4h }\nslaDomains: { names: [Platinum] }',
        ].join('\n---\n'),
      );
      const result = await t.paw(['doctor', '--json', '--jobs', jobs]);
      expect(result.code).toBe(1);
      const report = json<DoctorJson>(result);
      expect(byId(report, 'definition.good')?.status).toBe('ok');
      expect(byId(report, 'definition.databases')?.detail).toMatch(
        /Archive does not protect MSSQL_DATABASE/,
      );
      expect(byId(report, 'definition.window')?.detail).toMatch(
        /no SLA Domain is named "Platinum"/,
      );
      // Only the kinds the definitions use are checked.
      expect(byId(report, 'graphql.rotate-secret')).toBeUndefined();
    });

    it('names what the read-only account lacks, and fails', async () => {
      const readOnly = join(t.dir, 'readonly.json');
      await writeFile(readOnly, JSON.stringify(t.fixtures.serviceAccounts.readOnly), {
        mode: 0o600,
      });
      const result = await t.paw(['doctor', '--json', '--credentials', readOnly]);
      expect(result.code).toBe(1);
      const report = json<DoctorJson>(result);
      const rotation = byId(report, 'graphql.rotate-secret');
      expect(rotation).toMatchObject({ status: 'fail', blocks: true });
      expect(rotation?.fix).toMatch(/lacks a role that can read and rotate service accounts/);
      // It may read, so every read route answers; it may not snapshot or pause.
      expect(byId(report, 'rest.route.getWorkload')?.status).toBe('ok');
      expect(byId(report, 'rest.write.takeSnapshot')).toMatchObject({
        status: 'fail',
        blocks: true,
      });
      expect(byId(report, 'rest.write.pauseSlaDomain')?.status).toBe('fail');
      expect(byId(report, 'graphql.snapshot')).toMatchObject({ status: 'fail', blocks: false });
      expect(byId(report, 'graphql.snapshot')?.fix).toMatch(/take on-demand snapshots/);
    });

    it("compares paw's documents with the account's own schema: a difference is not a permission", async () => {
      // The simulator answers introspection with the published schema: every document matches.
      const live = json<DoctorJson>(await t.paw(['doctor', '--json', '--api', 'graphql']));
      for (const kind of ['snapshot', 'sla-window', 'rotate-secret']) {
        expect(byId(live, `graphql.schema.${kind}`), kind).toMatchObject({ status: 'ok' });
      }
      // An account whose schema renamed the SQL Server status input and dropped a field paw reads.
      const published = await readFile(
        new URL('../../../src/platform/graphql/schema/platform-schema.graphql', import.meta.url),
        'utf8',
      );
      const older = published
        .replace(/GetMssqlAsyncRequestStatusInput/g, 'MssqlJobStatusInput')
        .replace(/^ {2}pausedSlaInfo: PausedSlaInfo\n/m, '');
      expect(older).not.toBe(published);
      const file = join(t.dir, 'account-schema.graphql');
      await writeFile(file, older);
      const result = await t.paw(['doctor', '--json', '--api', 'graphql', '--schema', file]);
      expect(result.code).toBe(1);
      const report = json<DoctorJson>(result);
      const snapshot = byId(report, 'graphql.schema.snapshot');
      expect(snapshot).toMatchObject({ status: 'fail', blocks: true });
      expect(snapshot?.detail).toContain(
        'mssqlJobStatus: Unknown type "GetMssqlAsyncRequestStatusInput".',
      );
      expect(snapshot?.detail).toContain(
        'globalSlaStatuses: Cannot query field "pausedSlaInfo" on type "GlobalSlaStatus".',
      );
      expect(snapshot?.fix).toMatch(/no role fixes it/);
      expect(byId(report, 'graphql.schema.rotate-secret')?.status).toBe('ok');
      // The account's roles are fine: the permission checks pass on the same run.
      expect(byId(report, 'graphql.snapshot')?.status).toBe('ok');

      const missing = await t.paw(['doctor', '--json', '--schema', join(t.dir, 'nothing.graphql')]);
      expect(byId(json<DoctorJson>(missing), 'graphql.schema')).toMatchObject({ status: 'fail' });
    });

    it('reports an invalid schema file as one failed check, and the rest of the report with it', async () => {
      // Valid SDL syntax, but no schema: no query root, and an enum without values.
      const file = join(t.dir, 'invalid-schema.graphql');
      await writeFile(file, 'type Foo { a: Int }\nenum Empty\n');
      const result = await t.paw(['doctor', '--json', '--api', 'graphql', '--schema', file]);
      // The comparison could not be made: a failed check, but none of the account's rights.
      expect(result.code, result.stderr).toBe(0);
      const report = json<DoctorJson>(result);
      expect(byId(report, 'graphql.schema')).toMatchObject({ status: 'fail', blocks: false });
      expect(byId(report, 'graphql.schema')?.detail).toBe(
        'not a valid GraphQL schema: Query root type must be provided.; Enum type Empty must define one or more values.',
      );
      expect(report.checks.filter((entry) => entry.status === 'fail')).toHaveLength(1);
      for (const id of ['credentials', 'token', 'graphql.snapshot']) {
        expect(byId(report, id)?.status, id).toBe('ok');
      }
    });

    it('refuses a schema file over its cap, or a FIFO, at once, naming it', async () => {
      // 45 MB, sparse: what is refused is its size, before a byte is read.
      const huge = join(t.dir, 'huge-schema.graphql');
      await writeFile(huge, '');
      await truncate(huge, 45_000_000);
      const fifo = join(t.dir, 'schema.fifo');
      execFileSync('mkfifo', [fifo]);
      for (const [file, detail] of [
        [huge, `${huge} (42.9 MiB) is more than 32 MiB, the most paw reads from a schema file`],
        [fifo, `${fifo} is a named pipe (FIFO), not a regular file`],
      ] as const) {
        const result = await t.paw(['doctor', '--json', '--api', 'graphql', '--schema', file]);
        expect(result.code, result.stderr).toBe(0);
        const check = byId(json<DoctorJson>(result), 'graphql.schema');
        expect(check).toMatchObject({ status: 'fail' });
        expect(check?.detail).toContain(detail);
      }
    });

    it('reports missing credentials as a failed check with the fix', async () => {
      const result = await t.paw(['doctor'], { env: { PAW_CREDENTIALS_FILE: '' } });
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/✘ fail {2}credentials:/);
      expect(result.stdout).toMatch(/fix: download the service account’s credentials file/);
    });
  });

  describe('on a platform whose REST routes moved (the v2 layout)', () => {
    let t: CliSimulator;
    beforeAll(async () => {
      t = await startCliSimulator({
        seed: 6,
        timeScale: 3000,
        restLayout: 'v2',
        jobs: { failureRate: 0, cancelRate: 0 },
      });
    });
    afterAll(() => t.close());

    it('finds the renamed routes in the platform reference, writes them, and paw then runs with them', async () => {
      const vm = t.fixtures.workloads.samples.vsphereVm ?? '';
      const without = await t.paw(['snapshot', vm, '--wait']);
      expect(without.code).not.toBe(0);

      const routes = join(t.dir, 'routes.yaml');
      const result = await t.paw(['doctor', '--json', '--write-routes', routes]);
      expect(result.code).toBe(1);
      const report = json<DoctorJson>(result);
      expect(byId(report, 'rest.reachable')?.status).toBe('fail');
      expect(byId(report, 'rest.reference')?.detail).toMatch(
        /found via the docs page at \/api\/rest\/v2\/reference\/openapi\.json/,
      );
      expect(report.recommendations.join(' ')).toMatch(/--api graphql/);
      expect(result.stderr).toMatch(/wrote .*routes\.yaml: 15 routes/);

      // The file is a settings file paw loads as it is.
      const config = join(t.dir, 'config');
      await mkdir(config);
      await writeFile(join(config, 'paw.yaml'), await readFile(routes, 'utf8'));
      const { settings } = await loadSettings({ env: {}, cwd: t.dir });
      expect(settings.platform.routes.getSnapshotJobStatus).toEqual({
        method: 'GET',
        path: '/jobs/{jobId}',
      });
      const again = await t.paw(['doctor', '--json'], { cwd: t.dir });
      expect(again.code, again.stdout).toBe(0);
      const snapshot = await t.paw(['snapshot', vm, '--wait', '--poll-interval', '0.2', '--json'], {
        cwd: t.dir,
      });
      expect(snapshot.code, snapshot.stderr).toBe(0);
      expect(json<{ phase: string }>(snapshot).phase).toBe('succeeded');

      const exists = await t.paw(['doctor', '--write-routes', routes]);
      expect(exists.code).toBe(2);
      expect(exists.stderr).toMatch(/exists; pass --force/);
    });

    it('passes through GraphQL, as it recommends', async () => {
      const result = await t.paw(['doctor', '--json', '--api', 'graphql'], { cwd: t.dir + '/..' });
      const report = json<DoctorJson>(result);
      expect(report.api).toBe('graphql');
      expect(result.code, JSON.stringify(report.checks.filter((c) => c.status === 'fail'))).toBe(0);
    });
  });

  describe('on a platform that spells things its own way', () => {
    let t: CliSimulator;
    beforeAll(async () => {
      t = await startCliSimulator({
        seed: 6,
        vocabulary: 'graphql',
        typeSpellings: { HYPERV_VM: 'HypervVmGen2' },
      });
    });
    afterAll(() => t.close());

    it('knows the GraphQL words, and names the one it does not with the setting that teaches it', async () => {
      const result = await t.paw(['doctor', '--json']);
      const report = json<DoctorJson>(result);
      expect(result.code).toBe(0); // an unknown type word is a warning: the platform decides
      const words = byId(report, 'rest.vocabulary');
      expect(words?.status).toBe('warn');
      expect(words?.detail).toMatch(
        /does not recognise "HypervVmGen2"; it knows .*VmwareVirtualMachine \(VSPHERE_VM\)/,
      );
      expect(words?.fix).toMatch(/platform\.vocabulary\.workloadTypes/);
    });
  });
});
