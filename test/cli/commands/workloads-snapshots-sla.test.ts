import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startCliSimulator, type CliSimulator } from '../cli-simulator.js';

interface Workload {
  id: string;
  name: string;
  type: string;
  slaDomainId: string | null;
}

describe('paw workloads, snapshot, sla, clusters and events against the simulator', () => {
  let t: CliSimulator;

  beforeAll(async () => {
    t = await startCliSimulator({
      seed: 31,
      timeScale: 3000,
      jobs: { failureRate: 0, cancelRate: 0 },
    });
  });
  afterAll(() => t.close());

  const sample = (
    name: 'vsphereVm' | 'unprotected' | 'unsupportedType' | 'mssqlDatabase',
  ): string => t.fixtures.workloads.samples[name] ?? '';

  it('lists workloads as a table and as JSON', async () => {
    const table = await t.paw(['workloads', 'list', '--limit', '5']);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+TYPE\s+CLUSTER\s+SLA DOMAIN$/);
    expect(table.stdout.trim().split('\n')).toHaveLength(6);
    expect(table.stderr).toContain('showing 5 of 40');
    const all = json<Workload[]>(await t.paw(['workloads', 'list', '--all', '--json']));
    expect(all).toHaveLength(40);
    const sqlOnly = json<Workload[]>(
      await t.paw(['workloads', 'list', '--type', 'MSSQL_DATABASE', '--json']),
    );
    expect(sqlOnly.every((workload) => workload.type === 'MSSQL_DATABASE')).toBe(true);
  });

  it('gets a workload and its snapshots; an unknown one exits 1', async () => {
    const got = await t.paw(['workloads', 'get', sample('vsphereVm')]);
    expect(got.code).toBe(0);
    expect(got.stdout).toMatch(/^type:\s+VSPHERE_VM$/m);
    const snapshots = await t.paw([
      'workloads',
      'snapshots',
      sample('vsphereVm'),
      '--json',
      '--limit',
      '3',
    ]);
    expect(snapshots.code).toBe(0);
    expect(json<unknown[]>(snapshots).length).toBeLessThanOrEqual(3);
    const missing = await t.paw(['workloads', 'get', '00000000-0000-4000-8000-000000000000']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^paw: getWorkload: .*not found.*HTTP 404/m);
  });

  it('refuses an unsupported workload type with exit 2 and triggers nothing', async () => {
    const before = (await t.stats()).byOperation['takeSnapshot'] ?? 0;
    const refused = await t.paw(['snapshot', sample('unsupportedType')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'supported only for vSphere VMs (VSPHERE_VM) and SQL Server databases (MSSQL_DATABASE)',
    );
    expect((await t.stats()).byOperation['takeSnapshot'] ?? 0).toBe(before);
  });

  it('takes a snapshot, warns loudly that it is kept forever, and waits with progress', async () => {
    const run = await t.paw([
      'snapshot',
      sample('unprotected'),
      '--wait',
      '--poll-interval',
      '0.05',
      '--json',
    ]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/WARNING: .*KEPT FOREVER/);
    // Progress lines while it runs, then the end. Which phases a poll lands in depends on how busy
    // the machine is, so any in-progress phase counts.
    expect(run.stderr).toMatch(/\[[#.]+\]\s+\d+%\s+(QUEUED|ACQUIRING|RUNNING|FINISHING)/);
    expect(run.stderr).toMatch(/\[#+\]\s+100%\s+SUCCEEDED/);
    const job = json<{ id: string; status: string; phase: string; snapshotId: string }>(run);
    expect(job).toMatchObject({ status: 'SUCCEEDED', phase: 'succeeded' });
    expect(job.id).toMatch(/^CREATE_VSPHERE_SNAPSHOT_/);
  });

  it('does not warn when an SLA Domain gives the snapshot a retention', async () => {
    const sla = t.fixtures.slaDomains.find((domain) => domain.name === 'Gold')?.id ?? '';
    const run = await t.paw(['snapshot', sample('mssqlDatabase'), '--sla', sla]);
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain('WARNING');
    expect(run.stdout).toMatch(/^snapshot job:\s+MSSQL_DB_BACKUP_/m);
  });

  it('manages an SLA Domain from create to delete', async () => {
    const created = json<{ id: string; clusters: { clusterId: string; pauseStatus: string }[] }>(
      await t.paw([
        'sla',
        'create',
        '--name',
        'CLI Weekly',
        '--object-types',
        'VSPHERE_VM',
        '--frequency',
        'WEEKLY',
        '--retention',
        '8',
        '--retention-unit',
        'WEEKS',
        '--json',
      ]),
    );
    const id = created.id;
    const listed = await t.paw(['sla', 'list', '--name', 'CLI Weekly']);
    expect(listed.stdout).toMatch(/CLI Weekly\s+1 WEEKLY\s+8 WEEKS\s+0/);
    const vm = sample('vsphereVm');
    expect((await t.paw(['sla', 'assign', id, vm])).code).toBe(0);
    const paused = await t.paw(['sla', 'pause', id]);
    expect(paused.code).toBe(0);
    expect(paused.stdout).toMatch(/PAUSED/);
    expect(
      json<{ id: string }[]>(await t.paw(['sla', 'list', '--paused', '--json'])).map((s) => s.id),
    ).toContain(id);
    expect((await t.paw(['sla', 'resume', id])).stdout).toMatch(/NOT_PAUSED/);
    const updated = json<{ retention: unknown }>(
      await t.paw(['sla', 'update', id, '--retention', '30', '--json']),
    );
    expect(updated.retention).toEqual({ unit: 'DAYS', duration: 30 });
    const blocked = await t.paw(['sla', 'delete', id]);
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toContain('HTTP 409');
    expect((await t.paw(['sla', 'unassign', id, vm])).code).toBe(0);
    expect((await t.paw(['sla', 'delete', id])).code).toBe(0);
    expect((await t.paw(['sla', 'get', id])).code).toBe(1);
  });

  it('lists clusters and events', async () => {
    const clusters = json<{ connectionState: string }[]>(
      await t.paw(['clusters', 'list', '--state', 'disconnected', '--json']),
    );
    expect(clusters.length).toBeGreaterThan(0);
    expect(clusters.every((cluster) => cluster.connectionState === 'Disconnected')).toBe(true);
    const events = await t.paw([
      'events',
      'list',
      '--object',
      sample('unprotected'),
      '--type',
      'BACKUP',
    ]);
    expect(events.code).toBe(0);
    expect(events.stdout).toMatch(/BACKUP\s+SUCCESS/);
  });

  it('exits 2 with what to do on bad usage and missing credentials', async () => {
    const noCredentials = await t.paw(['workloads', 'list'], { env: { PAW_CREDENTIALS_FILE: '' } });
    expect(noCredentials.code).toBe(2);
    expect(noCredentials.stderr).toContain('--credentials FILE');
    const badLimit = await t.paw(['workloads', 'list', '--limit', '0']);
    expect(badLimit.code).toBe(2);
    expect(badLimit.stderr).toContain('whole number of 1 or more');
    const twoFilters = await t.paw(['sla', 'list', '--name', 'x', '--paused']);
    expect(twoFilters.code).toBe(2);
    const plainHttp = await t.paw(['workloads', 'list'], {
      env: {
        PAW_CREDENTIALS_FILE: '',
        PAW_PLATFORM_URL: 'http://platform.example',
        PAW_CLIENT_ID: 'c',
        PAW_CLIENT_SECRET: 's',
      },
    });
    expect(plainHttp.code).toBe(2);
    expect(plainHttp.stderr).toContain('plain http://');
  });
});
