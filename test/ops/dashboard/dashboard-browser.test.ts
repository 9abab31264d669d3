import { mkdir } from 'node:fs/promises';
import { Queue } from 'bullmq';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Settings } from '../../../src/config/settings-schema.js';
import { Outcomes } from '../../../src/outcomes/outcomes.js';
import type { ItemUpdate } from '../../../src/outcomes/outcome-records.js';
import { PawMetrics } from '../../../src/ops/metrics/paw-metrics.js';
import { startOpsServer, type OpsServer } from '../../../src/ops/ops-server.js';
import { RateLimitRecord } from '../../../src/platform/rate-limit/rate-limit-record.js';
import { exampleDefinition } from '../../testkit/definitions.js';
import { eventually } from '../../testkit/eventually.js';
import { captureLogs } from '../../testkit/log-capture.js';
import { connectTestRedis } from '../../testkit/redis-connection.js';
import { browserAvailability, launchChromium } from './browser.js';
import { opsSettings } from '../ops-settings.js';
import { recordRun } from '../recorded-runs.js';

const MINUTE = 60_000;

/** The value of `attribute` on every element `locator` finds, in document order. */
async function attributes(locator: Locator, attribute: string): Promise<(string | null)[]> {
  return Promise.all((await locator.all()).map((element) => element.getAttribute(attribute)));
}

/** Every number a list of elements carries in `attribute`, summed. */
async function sumOf(page: Page, selector: string, attribute: string): Promise<number> {
  const values = await attributes(page.locator(selector), attribute);
  return values.reduce((total, value) => total + Number(value ?? 'NaN'), 0);
}

/** Errors the page reports: script errors and anything the Content-Security-Policy refused. */
function pageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return errors;
}

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
    // Write mode: the dashboard offers to retry a run's failed items.
    settings = await opsSettings('browser', { PAW_HTTP_QUEUES_READ_ONLY: 'false' });
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
        exampleDefinition('snapshot', { id: 'hourly-sql' }),
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
    expect(await page.locator('tr[data-definition-id]').count()).toBe(3);
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

  it("draws each definition's last runs, a snapshot run's progress and a window's timeline, with the right counts", async () => {
    const prefix = settings.redis.prefix;
    const store = new Outcomes(redis, prefix);
    const t0 = Math.floor((Date.now() - 8 * 3_600_000) / MINUTE) * MINUTE;
    const at = (ms: number): Date => new Date(t0 + ms);
    const oneItem = (status: ItemUpdate['status'], ms: number) => [
      { key: 'w1', status, startedAt: at(ms - 30_000), finishedAt: at(ms) },
    ];
    const hourly = (hours: number): string =>
      `hourly-sql@${at(hours * 3_600_000)
        .toISOString()
        .replace(/[-:]/g, '')
        .replace(/\.000Z$/, 'Z')}`;

    // hourly-sql, oldest first: succeeded (2 min), failed (5 min), skipped (never started),
    // succeeded (1 min), and the run whose progress is drawn (6.5 min, 3 failures).
    await recordRun(redis, prefix, {
      runId: hourly(0),
      definitionId: 'hourly-sql',
      fireTime: at(0),
      startedAt: at(0),
      finishedAt: at(2 * MINUTE),
      items: oneItem('succeeded', 2 * MINUTE),
    });
    await recordRun(redis, prefix, {
      runId: hourly(1),
      definitionId: 'hourly-sql',
      fireTime: at(3_600_000),
      startedAt: at(3_600_000),
      finishedAt: at(3_600_000 + 5 * MINUTE),
      items: oneItem('failed', 3_600_000 + 5 * MINUTE),
    });
    await store.runs.create({
      runId: hourly(2),
      definitionId: 'hourly-sql',
      kind: 'snapshot',
      fireTime: at(2 * 3_600_000),
      trigger: 'cron',
      status: 'skipped',
      reason: 'paused by alice at … : change freeze',
    });
    await recordRun(redis, prefix, {
      runId: hourly(3),
      definitionId: 'hourly-sql',
      fireTime: at(3 * 3_600_000),
      startedAt: at(3 * 3_600_000),
      finishedAt: at(3 * 3_600_000 + MINUTE),
      items: oneItem('succeeded', 3 * 3_600_000 + MINUTE),
    });
    const start = 4 * 3_600_000;
    const failing = new Set([4, 13, 29]); // they end in minutes 4, 1 and 5: three slices
    const items = Array.from({ length: 40 }, (_, index) => {
      const status: ItemUpdate['status'] = failing.has(index)
        ? 'failed'
        : index === 33
          ? 'canceled'
          : 'succeeded';
      return {
        key: `w${index}`,
        target: `w${index}`,
        targetName: `sql-${index}`,
        status,
        startedAt: at(start + (index % 6) * MINUTE + 5_000),
        finishedAt: at(start + (index % 6) * MINUTE + 20_000),
        ...(status === 'failed' ? { errorCode: 'SNAPSHOT_FAILED', errorMessage: 'disk full' } : {}),
      };
    });
    // One more, skipped at fan-out: ended, never started, no finishedAt of its own.
    const skippedAtFanOut = {
      key: 'nas',
      status: 'skipped' as const,
      reason: 'cannot be snapshotted',
    };
    await recordRun(redis, prefix, {
      runId: hourly(4),
      definitionId: 'hourly-sql',
      fireTime: at(start),
      startedAt: at(start),
      finishedAt: at(start + 6 * MINUTE + 30_000),
      items: [...items, { ...skippedAtFanOut, startedAt: null, finishedAt: null }],
    });
    // 429s: three in minute 2, two in minute 4 of the run, one long before it (not its own).
    const limits = new RateLimitRecord(redis, prefix, 3600);
    for (const ms of [
      2 * MINUTE + 5_000,
      2 * MINUTE + 9_000,
      2 * MINUTE + 50_000,
      4 * MINUTE,
      4 * MINUTE + 1,
    ]) {
      limits.record(at(start + ms));
    }
    limits.record(at(start - 30 * MINUTE));
    await eventually('the 429s on record', async () => {
      const counts = await limits.between(at(start - 60 * MINUTE), at(start + 10 * MINUTE));
      return [...counts.values()].reduce((a, b) => a + b, 0) === 6;
    });

    // saturday-window: Gold paused and resumed by paw; Silver paused by hand before the window
    // (left alone); Bronze does not exist.
    const window = at(5 * 3_600_000);
    const windowItem = (
      key: string,
      name: string,
      action: 'pause' | 'resume',
      update: Partial<ItemUpdate> & Pick<ItemUpdate, 'status'>,
      ms: number,
    ) => ({
      key,
      target: key.split('/')[0] ?? key,
      targetName: name,
      targetType: 'SLA_DOMAIN',
      action,
      startedAt: at(5 * 3_600_000 + ms - 500),
      finishedAt: at(5 * 3_600_000 + ms),
      ...update,
    });
    const windowRunId =
      'saturday-window@' +
      window
        .toISOString()
        .replace(/[-:]/g, '')
        .replace(/\.000Z$/, 'Z');
    await recordRun(redis, prefix, {
      runId: windowRunId,
      definitionId: 'saturday-window',
      kind: 'sla-window',
      fireTime: window,
      startedAt: window,
      finishedAt: at(5 * 3_600_000 + 30 * MINUTE + 2_000),
      items: [
        windowItem(
          'gold/c1/pause',
          'Gold on cluster-a',
          'pause',
          { status: 'succeeded', reason: 'paused' },
          1_000,
        ),
        windowItem(
          'gold/c1/resume',
          'Gold on cluster-a',
          'resume',
          { status: 'succeeded', reason: 'resumed' },
          30 * MINUTE,
        ),
        windowItem(
          'silver/c1/pause',
          'Silver on cluster-a',
          'pause',
          {
            status: 'skipped',
            reason: 'already paused by someone else: left alone (paw will not resume it)',
          },
          1_000,
        ),
        windowItem(
          'silver/c1/resume',
          'Silver on cluster-a',
          'resume',
          {
            status: 'skipped',
            reason: 'was paused by someone else before the window: left paused',
          },
          30 * MINUTE,
        ),
        windowItem(
          'bronze/pause',
          'Bronze <i>',
          'pause',
          {
            status: 'failed',
            errorCode: 'NOT_FOUND',
            errorMessage: 'no SLA Domain is named "Bronze <i>"',
          },
          800,
        ),
      ],
    });

    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors = pageErrors(page);
    await page.goto(`${server.url}/`);

    // The strip: one mark per run, oldest first, the longest the tallest, the skipped one a stub.
    const strip = page.locator('svg.run-strip[data-definition-id="hourly-sql"]');
    await strip.waitFor();
    expect(await strip.getAttribute('data-runs')).toBe('5');
    const marks = strip.locator('rect.run-mark');
    expect(await marks.count()).toBe(5);
    expect(await attributes(marks, 'data-status')).toEqual([
      'succeeded',
      'failed',
      'skipped',
      'succeeded',
      'failed',
    ]);
    const heights = (await attributes(marks, 'height')).map(Number);
    expect(Math.max(...heights)).toBe(heights[4]);
    expect(heights[2]).toBe(Math.min(...heights));
    expect(await marks.nth(4).locator('title').textContent()).toMatch(/took 7m/);

    // The progress: the slices add up to the run's ended items, failures where they happened,
    // the run's own 429s only.
    const run = await store.runs.get(hourly(4));
    const endedItems =
      (run?.counts.total ?? 0) - (run?.counts.queued ?? 0) - (run?.counts.running ?? 0);
    expect(endedItems).toBe(41);
    const chart = page.locator(`figure.progress[data-run-id="${hourly(4)}"] svg`);
    expect(await chart.getAttribute('data-ended')).toBe(String(endedItems));
    expect(await chart.getAttribute('data-failed')).toBe('3');
    expect(await chart.getAttribute('data-rate-limited')).toBe('5');
    const buckets = `figure.progress[data-run-id="${hourly(4)}"] g.bucket`;
    expect(await sumOf(page, buckets, 'data-ended')).toBe(endedItems);
    expect(await sumOf(page, buckets, 'data-failed')).toBe(3);
    expect(await page.locator(`${buckets} path.failure-mark`).count()).toBe(3);
    expect(await sumOf(page, `${buckets} rect.rate-limited`, 'data-count')).toBe(5);
    // 10-second slices for a run of 6.5 minutes: 39 of them; the 429s fell in three.
    expect(await chart.getAttribute('data-bucket-seconds')).toBe('10');
    expect(await page.locator(`${buckets}`).count()).toBe(39);
    expect(await attributes(page.locator(`${buckets} rect.rate-limited`), 'data-count')).toEqual([
      '2',
      '1',
      '2',
    ]);
    expect(
      await page.locator(`figure.progress[data-run-id="${hourly(4)}"] figcaption`).innerText(),
    ).toMatch(/41 of 41 ended, 3 failed/);

    // The window: three rows; Silver, paused by hand, left alone; Gold paused then resumed.
    const timeline = page.locator(`figure.window[data-run-id="${windowRunId}"] svg`);
    expect(await timeline.locator('g.window-row').count()).toBe(3);
    const silver = timeline.locator('g.window-row[data-key="silver/c1"]');
    expect(await silver.getAttribute('data-state')).toBe('left-alone');
    expect(await silver.locator('text.row-label').textContent()).toBe('Silver on cluster-a');
    expect(await silver.locator('text.row-note').textContent()).toBe('left alone');
    expect(await silver.locator('title').textContent()).toMatch(/already paused by someone else/);
    const gold = timeline.locator('g.window-row[data-key="gold/c1"]');
    expect(await gold.getAttribute('data-state')).toBe('paused');
    expect(await gold.locator('rect.held').count()).toBe(1);
    expect(await gold.locator('path.step.pause').count()).toBe(1);
    expect(await gold.locator('path.step.resume').count()).toBe(1);
    const bronze = timeline.locator('g.window-row[data-key="bronze"]');
    expect(await bronze.getAttribute('data-state')).toBe('failed');
    expect(await bronze.locator('text.row-label').textContent()).toBe('Bronze <i>');

    expect(errors).toEqual([]);
    await mkdir('reports', { recursive: true });
    await page.screenshot({ path: 'reports/dashboard-pictures-test.png', fullPage: true });
    await page.close();
  });

  it('retries the items of a run that did not succeed from the page, as a new linked run, once', async () => {
    const prefix = settings.redis.prefix;
    const failedRun = 'nightly-vms@20250103T010000Z';
    await recordRun(redis, prefix, {
      runId: failedRun,
      definitionId: 'nightly-vms',
      fireTime: new Date('2025-01-03T01:00:00Z'),
      items: [
        { key: 'vm-a', target: 'vm-a', status: 'succeeded', action: 'snapshot' },
        { key: 'vm-b', target: 'vm-b', status: 'failed', action: 'snapshot', errorCode: 'X' },
        { key: 'vm-c', target: 'vm-c', status: 'timed-out', action: 'snapshot' },
        { key: 'vm-d', target: 'vm-d', status: 'skipped', action: 'snapshot' },
      ],
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = pageErrors(page);
    await page.goto(`${server.url}/`);
    const form = page.locator(`form.retry[data-run-id="${failedRun}"]`);
    await form.waitFor();
    expect(await form.innerText()).toMatch(/Retry the 2 items that did not succeed/);
    // The reason is typed and the form sent in one step: the page redraws itself every second
    // here, and a redraw between typing and clicking would send another (empty) form.
    const submitRetry = (reason: string) =>
      page.evaluate(`(() => {
        const form = document.querySelector(${JSON.stringify(`form.retry[data-run-id="${failedRun}"]`)});
        form.elements.reason.value = ${JSON.stringify(reason)};
        form.requestSubmit();
      })()`);
    await submitRetry('cluster-b is back <b>');
    const output = page.locator(`form.retry[data-run-id="${failedRun}"] output`);
    await eventually('the retry', async () => /^started /.test((await output.textContent()) ?? ''));
    const retryRunId = (await output.getAttribute('data-new-run-id')) ?? '';
    expect(retryRunId).toMatch(/^nightly-vms@\d{8}T\d{6}\.\d{3}Z-manual$/);
    // The page refreshes every second here; what the click started is still said after it.
    const refreshed = (await page.locator('#refresh-status').textContent()) ?? '';
    await eventually(
      'a refresh',
      async () => ((await page.locator('#refresh-status').textContent()) ?? '') !== refreshed,
      { timeoutMs: 20_000 },
    );
    expect(await output.textContent()).toBe(`started ${retryRunId}`);
    expect(await output.getAttribute('data-new-run-id')).toBe(retryRunId);

    // The new run is on the page, linked to the first by its reason, with the operator's words.
    const retried = page.locator(`details[data-run-id="${retryRunId}"]`);
    await retried.waitFor({ state: 'attached', timeout: 20_000 });
    expect(await retried.getAttribute('data-status')).toBe('queued');
    expect(await retried.locator('p.reason').textContent()).toBe(
      `retry of ${failedRun}: 2 workload(s) whose items ended failed or timed-out or canceled; by anonymous: cluster-b is back <b>`,
    );
    // Its job covers just the workloads that did not succeed.
    const queue = new Queue('snapshot', { connection: redis, prefix });
    try {
      const job = await queue.getJob(retryRunId);
      expect(job?.data).toMatchObject({
        runId: retryRunId,
        trigger: 'manual',
        definition: { id: 'nightly-vms', targets: { ids: ['vm-b', 'vm-c'] } },
      });
    } finally {
      await queue.close();
    }

    // A second click starts nothing new: it names the first retry.
    await submitRetry('again');
    await eventually('the second answer', async () =>
      /^already retried as /.test((await output.textContent()) ?? ''),
    );
    expect(await output.textContent()).toBe(`already retried as ${retryRunId}`);
    const runs = (await (
      await fetch(`${server.url}/api/runs?definition=nightly-vms&limit=100`)
    ).json()) as {
      runId: string;
      reason?: string;
    }[];
    expect(
      runs.filter((run) => run.reason?.startsWith(`retry of ${failedRun}`) === true),
    ).toHaveLength(1);

    // Both are on record: who, why, what came of it.
    const actions = (await (await fetch(`${server.url}/api/actions`)).json()) as Record<
      string,
      string
    >[];
    expect(actions.slice(0, 2)).toEqual([
      expect.objectContaining({
        user: 'anonymous',
        via: 'open',
        action: 'retry run',
        target: failedRun,
        outcome: 'no change',
        reason: 'again',
      }),
      expect.objectContaining({
        user: 'anonymous',
        via: 'open',
        action: 'retry run',
        target: failedRun,
        outcome: 'done',
        reason: 'cluster-b is back <b>',
        detail: `started ${retryRunId} over 2 workload(s)`,
      }),
    ]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
