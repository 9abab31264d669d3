import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Settings } from '../../../src/config/settings-schema.js';
import { PawMetrics } from '../../../src/ops/metrics/paw-metrics.js';
import { startOpsServer, type OpsServer } from '../../../src/ops/ops-server.js';
import { exampleDefinition } from '../../testkit/definitions.js';
import { captureLogs } from '../../testkit/log-capture.js';
import { connectTestRedis } from '../../testkit/redis-connection.js';
import { opsSettings } from '../ops-settings.js';
import { recordRun } from '../recorded-runs.js';

const HOSTILE = '<img src=x onerror="alert(1)"><script>alert(2)</script>';

describe('the dashboard over HTTP', () => {
  const logs = captureLogs('info');
  const redis = connectTestRedis();
  let settings: Settings;
  let server: OpsServer;
  const nightly = exampleDefinition('snapshot', {
    id: 'nightly-vms',
    description: 'the nightly <b>snapshots</b>',
    notify: { webhook: { url: 'https://hooks.example.com/services/T0/B0/tok-secret-42' } },
  });
  const window = exampleDefinition('sla-window', { id: 'saturday-window', enabled: false });

  beforeAll(async () => {
    settings = await opsSettings('dashboard');
    const prefix = settings.redis.prefix;
    await recordRun(redis, prefix, {
      runId: 'nightly-vms@20250101T010000Z',
      definitionId: 'nightly-vms',
      fireTime: new Date('2025-01-01T01:00:00Z'),
      items: [
        { key: 'w-ok-1', status: 'succeeded', targetName: 'prod-vm-001', action: 'snapshot' },
        {
          key: 'w-bad',
          status: 'failed',
          targetName: 'prod-sql-017',
          targetType: 'MSSQL_DATABASE',
          action: 'snapshot',
          errorCode: 'SNAPSHOT_FAILED',
          errorMessage: `the platform said ${HOSTILE}`,
        },
        { key: 'w-ok-2', status: 'succeeded', targetName: 'prod-vm-002', action: 'snapshot' },
        {
          key: 'w-skip',
          status: 'skipped',
          targetName: 'prod-nas-1',
          reason: 'NAS_SHARE cannot be snapshotted on demand',
        },
      ],
    });
    await recordRun(redis, prefix, {
      runId: 'nightly-vms@20250102T010000Z',
      definitionId: 'nightly-vms',
      fireTime: new Date('2025-01-02T01:00:00Z'),
      items: [{ key: 'w-ok-1', status: 'succeeded', targetName: 'prod-vm-001' }],
    });
    const started = await startOpsServer({
      settings,
      logger: logs.logger,
      role: 'scheduler',
      version: '1.2.3',
      metrics: new PawMetrics({ processMetrics: false }),
      definitions: [nightly, window],
      port: 0,
    });
    if (started === undefined) throw new Error('no ops server');
    server = started;
  });
  afterAll(async () => {
    await server.close();
    redis.disconnect();
  });

  it('lists definitions, runs with failures first and their reasons, and escapes everything', async () => {
    const response = await request(`${server.url}/`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-security-policy']).toContain("script-src 'self'");
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    const page = await response.body.text();

    // Escaped: the hostile message shows as text, never as markup.
    expect(page).not.toContain('<script>alert');
    expect(page).not.toContain('<img src=x');
    expect(page).toContain('&lt;script&gt;alert(2)&lt;/script&gt;');
    expect(page).not.toContain('<b>snapshots</b>');

    // Definitions with their next fires, last result and a redacted webhook.
    expect(page).toContain('data-definition-id="nightly-vms"');
    expect(page).toContain('data-definition-id="saturday-window"');
    expect(page).toContain('https://hooks.example.com/…');
    expect(page).not.toContain('tok-secret-42');

    // The failed run is open, its failed item first with its reason, then the skipped one.
    const failedRun =
      /<details[^>]*data-run-id="nightly-vms@20250101T010000Z"[^>]*>([\s\S]*?)<\/details>/.exec(
        page,
      );
    expect(failedRun?.[0]).toMatch(/data-status="failed"[^>]* open/);
    const keys = [...(failedRun?.[1] ?? '').matchAll(/data-item-key="([^"]+)"/g)].map((m) => m[1]);
    expect(keys).toEqual(['w-bad', 'w-skip', 'w-ok-1', 'w-ok-2']);
    expect(failedRun?.[1]).toContain('SNAPSHOT_FAILED: the platform said &lt;img');
    expect(failedRun?.[1]).toContain('NAS_SHARE cannot be snapshotted on demand');
    // The newer run comes first in the list of runs (the history strip has the oldest first).
    const runList = page.slice(page.indexOf('id="runs"'));
    expect(runList.indexOf('nightly-vms@20250102T010000Z')).toBeLessThan(
      runList.indexOf('nightly-vms@20250101T010000Z'),
    );
  });

  it('serves the same as JSON, and a content fragment for the refresh', async () => {
    const runs = (await (await request(`${server.url}/api/runs?limit=5`)).body.json()) as {
      runId: string;
      status: string;
    }[];
    expect(runs.map((run) => [run.runId, run.status])).toEqual([
      ['nightly-vms@20250102T010000Z', 'succeeded'],
      ['nightly-vms@20250101T010000Z', 'failed'],
    ]);
    const failed = (await (
      await request(`${server.url}/api/runs?status=failed`)
    ).body.json()) as unknown[];
    expect(failed).toHaveLength(1);
    expect((await request(`${server.url}/api/runs?status=bogus`)).statusCode).toBe(400);

    const one = (await (
      await request(`${server.url}/api/runs/${encodeURIComponent('nightly-vms@20250101T010000Z')}`)
    ).body.json()) as { items: { itemKey: string; errorMessage?: string }[] };
    expect(one.items[0]).toMatchObject({
      itemKey: 'w-bad',
      errorMessage: `the platform said ${HOSTILE}`,
    });
    expect((await request(`${server.url}/api/runs/nope@20250101T010000Z`)).statusCode).toBe(404);

    const definitions = await (await request(`${server.url}/api/definitions`)).body.text();
    expect(definitions).not.toContain('tok-secret-42');
    expect(JSON.parse(definitions)).toMatchObject([
      { id: 'nightly-vms', lastRun: { status: 'succeeded' }, notify: { on: 'failure' } },
      { id: 'saturday-window', enabled: false, nextFires: [] },
    ]);

    const fragment = await (await request(`${server.url}/dashboard/content`)).body.text();
    expect(fragment).toContain('id="runs"');
    expect(fragment).not.toContain('<html');
    const script = await request(`${server.url}/dashboard.js`);
    expect(script.headers['content-type']).toMatch(/javascript/);
    expect(await script.body.text()).toContain('/dashboard/content');
  });

  it('serves bull-board at /queues, read-only by default', async () => {
    const page = await request(`${server.url}/queues`);
    expect(page.statusCode).toBe(200);
    expect(await page.body.text()).toContain('paw queues');
    const api = (await (await request(`${server.url}/queues/api/queues`)).body.json()) as {
      queues: { name: string; readOnlyMode: boolean }[];
    };
    expect(api.queues.map((queue) => queue.name).sort()).toEqual(
      ['notify', 'rotate-secret', 'sla-window', 'snapshot'].sort(),
    );
    expect(api.queues.every((queue) => queue.readOnlyMode)).toBe(true);
  });
});
