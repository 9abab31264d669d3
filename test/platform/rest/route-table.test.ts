import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../../../src/config/load-settings.js';
import { RouteTable } from '../../../src/platform/rest/route-table.js';

async function settingsFile(yaml: string): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'paw-routes-'));
  await mkdir(join(root, 'config'));
  await writeFile(join(root, 'config', 'paw.yaml'), yaml);
  return root;
}

describe('RouteTable', () => {
  it('serves the default routes under {base_url}/api/rest, encoding path parameters', () => {
    const table = new RouteTable(new URL('https://acct.example/prefix'), '/api/rest');
    const route = table.resolve(
      'getSnapshotJobStatus',
      { workloadId: 'w 1', jobId: 'CREATE_VSPHERE_SNAPSHOT_w_r:::0' },
      { first: 10, after: undefined },
    );
    expect(route.method).toBe('GET');
    expect(route.template).toBe('/api/rest/workloads/{workloadId}/snapshot-jobs/{jobId}');
    expect(route.url.href).toBe(
      'https://acct.example/prefix/api/rest/workloads/w%201/snapshot-jobs/CREATE_VSPHERE_SNAPSHOT_w_r%3A%3A%3A0?first=10',
    );
  });

  it('applies per-operation overrides from the settings file', async () => {
    const cwd = await settingsFile(
      'platform:\n  routes:\n    listWorkloads:\n      path: /v2/objects\n    pauseSlaDomain:\n      method: PUT\n      path: /sla/{slaDomainId}/pause-state\n',
    );
    const { settings } = await loadSettings({ env: {}, cwd });
    const table = new RouteTable(
      new URL('https://a.example'),
      '/api/rest',
      settings.platform.routes,
    );
    expect(table.resolve('listWorkloads').url.pathname).toBe('/api/rest/v2/objects');
    const pause = table.resolve('pauseSlaDomain', { slaDomainId: 's1' });
    expect([pause.method, pause.url.pathname]).toEqual(['PUT', '/api/rest/sla/s1/pause-state']);
    expect(table.resolve('getWorkload', { workloadId: 'w' }).url.pathname).toBe(
      '/api/rest/workloads/w',
    );
  });

  it('rejects an override for an unknown operation or with the wrong parameters, with its line', async () => {
    const unknown = await settingsFile('platform:\n  routes:\n    listWidgets:\n      path: /w\n');
    await expect(loadSettings({ env: {}, cwd: unknown })).rejects.toThrow(
      /paw\.yaml:3:\d+: platform\.routes: unknown operationId "listWidgets"; known: listWorkloads/,
    );
    const wrong = await settingsFile(
      'platform:\n  routes:\n    getWorkload:\n      path: /workloads/{id}\n',
    );
    await expect(loadSettings({ env: {}, cwd: wrong })).rejects.toThrow(
      /paw\.yaml:4:\d+: platform\.routes\.getWorkload\.path: paw cannot fill \{id\} for getWorkload; it must use \{workloadId\}; placeholders paw fills here: \{workloadId\}, \{clusterId\}/,
    );
  });

  it('takes a route whose placeholders differ from the default, as long as paw can fill them', async () => {
    // The platform's planned top-level job lookup drops the workload id.
    const dir = await settingsFile(
      'platform:\n  routes:\n    getSnapshotJobStatus:\n      path: /jobs/{jobId}\n' +
        '    takeSnapshot:\n      path: /clusters/{clusterId}/objects/{workloadId}/snapshot\n',
    );
    const { settings } = await loadSettings({ env: {}, cwd: dir });
    const table = new RouteTable(
      new URL('https://acct.example'),
      '/api/rest',
      settings.platform.routes,
    );
    expect(
      table.resolve('getSnapshotJobStatus', { workloadId: 'w', jobId: 'a:::0' }).url.pathname,
    ).toBe('/api/rest/jobs/a%3A%3A%3A0');
    expect(table.resolve('takeSnapshot', { workloadId: 'w', clusterId: 'c' }).url.pathname).toBe(
      '/api/rest/clusters/c/objects/w/snapshot',
    );
    // A placeholder paw cannot fill for this call names the setting.
    expect(() => table.resolve('takeSnapshot', { workloadId: 'w' })).toThrow(
      /platform\.routes\.takeSnapshot: the route .* uses \{clusterId\}/,
    );
    const jobless = await settingsFile(
      'platform:\n  routes:\n    getSnapshotJobStatus:\n      path: /workloads/{workloadId}/jobs\n',
    );
    await expect(loadSettings({ env: {}, cwd: jobless })).rejects.toThrow(
      /getSnapshotJobStatus\.path: it must use \{jobId\}; placeholders paw fills here: \{jobId\}, \{workloadId\}, \{clusterId\}/,
    );
  });
});
