import { mkdir } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Settings } from '../../src/config/settings-schema.js';
import { PawMetrics } from '../../src/ops/metrics/paw-metrics.js';
import { startOpsServer, type OpsServer } from '../../src/ops/ops-server.js';
import { exampleDefinition } from '../support/definitions.js';
import { captureLogs } from '../support/log-capture.js';
import { connectTestRedis } from '../support/redis-connection.js';
import { browserAvailability, launchChromium } from './support/browser.js';
import { opsSettings } from './support/ops-settings.js';
import { recordRun } from './support/recorded-runs.js';

const availability = browserAvailability();

/** Where the screenshot goes (`reports/` is not versioned; docs/dashboard.png is made by the demo). */
const SCREENSHOT = process.env['PAW_DASHBOARD_SCREENSHOT'] ?? 'reports/dashboard-test.png';

describe.skipIf(!availability.available)('the dashboard in a real browser (chromium)', () => {
  const logs = captureLogs('info');
  const redis = connectTestRedis();
  let settings: Settings;
  let server: OpsServer;
  let browser: Browser;

  beforeAll(async () => {
    settings = await opsSettings('browser');
    await recordRun(redis, settings.redis.prefix, {
      runId: 'nightly-vms@20250101T010000Z',
      definitionId: 'nightly-vms',
      fireTime: new Date('2025-01-01T01:00:00Z'),
      items: [{ key: 'w1', status: 'succeeded', targetName: 'prod-vm-001', action: 'snapshot' }],
    });
    const started = await startOpsServer({
      settings,
      logger: logs.logger,
      role: 'scheduler',
      version: 'test',
      metrics: new PawMetrics({ processMetrics: false }),
      definitions: [
        exampleDefinition('snapshot', { id: 'nightly-vms' }),
        exampleDefinition('sla-window', { id: 'saturday-window' }),
      ],
      port: 0,
      refreshSeconds: 1,
    });
    if (started === undefined) throw new Error('no ops server');
    server = started;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    redis.disconnect();
  });

  it('loads, then shows by itself a run that just happened and its failure with the reason', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));

    await page.goto(`${server.url}/`);
    expect(await page.title()).toBe('paw dashboard');
    await page.locator('tr[data-definition-id="nightly-vms"]').waitFor();
    expect(await page.locator('tr[data-definition-id]').count()).toBe(2);
    expect(await page.locator('details[data-run-id]').count()).toBe(1);

    // A run ends now, with one failure: the open page picks it up without a reload.
    await recordRun(redis, settings.redis.prefix, {
      runId: 'nightly-vms@20250102T010000Z',
      definitionId: 'nightly-vms',
      fireTime: new Date(),
      items: [
        { key: 'w1', status: 'succeeded', targetName: 'prod-vm-001', action: 'snapshot' },
        {
          key: 'w2',
          status: 'failed',
          targetName: 'prod-sql-017',
          targetType: 'MSSQL_DATABASE',
          action: 'snapshot',
          errorCode: 'SNAPSHOT_FAILED',
          errorMessage: 'cluster storage full <script>alert("x")</script>',
        },
      ],
    });
    const run = page.locator('details[data-run-id="nightly-vms@20250102T010000Z"]');
    await run.waitFor({ timeout: 20_000 });
    expect(await run.getAttribute('open')).not.toBeNull();
    const failed = run.locator('tr.item').first();
    expect(await failed.getAttribute('data-status')).toBe('failed');
    expect(await failed.locator('td.reason').innerText()).toBe(
      'SNAPSHOT_FAILED: cluster storage full <script>alert("x")</script>',
    );
    expect(await run.locator('summary').innerText()).toMatch(/failed[\s\S]*1 succeeded · 1 failed/);
    const lastResult = page.locator('tr[data-definition-id="nightly-vms"] .badge').first();
    expect(await lastResult.innerText()).toBe('failed');
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);

    await mkdir('reports', { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    await page.close();
  });

  it('links to the queues, which bull-board serves in the browser', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/`);
    await page.locator('a[href="/queues"]').click();
    await page.waitForURL(/\/queues/);
    await page.getByText('snapshot', { exact: false }).first().waitFor({ timeout: 20_000 });
    expect(await page.title()).toContain('paw queues');
    await page.close();
  });
});
