import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobDefinition } from '../../../src/definitions/job-definition.js';
import type { RunRecord } from '../../../src/outcomes/outcome-records.js';
import type { OpsServer } from '../../../src/ops/ops-server.js';
import type { ProcessorHarness } from '../../job-kinds/processor-harness.js';
import {
  fireNights,
  nightlyDefinition,
  startCoverageHarness,
  startCoverageOpsServer,
} from '../../job-kinds/snapshot/coverage-nights.js';
import { browserAvailability, launchChromium } from './browser.js';

const availability = browserAvailability();

/** Where the screenshot goes: docs/images/coverage.png when asked (`reports/` is not versioned). */
const SCREENSHOT = process.env['PAW_COVERAGE_SCREENSHOT'] ?? 'reports/coverage-test.png';

/** The state order the page sorts by default: what needs attention first. */
const STATE_ORDER = ['failing', 'stale', 'never', 'skipped', 'protected'];

interface ShownRow {
  readonly workloadId: string;
  readonly name: string;
  readonly state: string;
  readonly streak: number;
  readonly marks: { status: string; runId: string; label: string }[];
}

/** An element as the page's script sees it (the tests compile without the DOM's types). */
interface Element {
  getAttribute(name: string): string | null;
  querySelectorAll(selector: string): Iterable<Element>;
}

async function shownRows(page: Page, definitionId: string): Promise<ShownRow[]> {
  return page
    .locator(`section[data-definition-id="${definitionId}"] tr.workload`)
    .evaluateAll((rows) =>
      (rows as unknown as Element[]).map((row) => ({
        workloadId: row.getAttribute('data-workload-id') ?? '',
        name: row.getAttribute('data-name') ?? '',
        state: row.getAttribute('data-state') ?? '',
        streak: Number(row.getAttribute('data-streak')),
        marks: [...row.querySelectorAll('.mark')].map((mark) => ({
          status: mark.getAttribute('data-status') ?? '',
          runId: mark.getAttribute('data-run-id') ?? '',
          label: mark.getAttribute('aria-label') ?? '',
        })),
      })),
    );
}

/**
 * The dashboard's coverage view after a small night with failures: four nights of one definition
 * against the simulator (its job failures and cancellations, its Disconnected cluster), the
 * first of them covering the VMs only, so its databases were not in that run.
 */
describe.skipIf(!availability.available)('the coverage view in a real browser (chromium)', () => {
  let harness: ProcessorHarness;
  let definition: JobDefinition;
  let server: OpsServer;
  let browser: Browser;
  const nights: RunRecord[] = [];

  beforeAll(async () => {
    harness = await startCoverageHarness('coverage-view');
    definition = nightlyDefinition();
    await harness.startWorker('snapshot');
    nights.push(
      ...(await fireNights(harness, [
        nightlyDefinition(['VSPHERE_VM']),
        definition,
        definition,
        definition,
      ])),
    );
    server = await startCoverageOpsServer(harness, [definition]);
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await harness?.close();
  });

  it('shows each workload × the last runs as marks of its items, failing first', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      // Chromium asks every server for a favicon on its own; the page links none.
      const { url } = message.location();
      if (message.type() === 'error' && !url.endsWith('/favicon.ico')) {
        errors.push(`${message.text()} ${url}`);
      }
    });
    // Reached from the dashboard's navigation.
    await page.goto(`${server.url}/`);
    await page.getByRole('link', { name: 'Coverage' }).click();
    await page.waitForURL(/\/coverage$/);

    const rows = await shownRows(page, 'nightly');
    const report = (await (await page.request.get(`${server.url}/api/coverage`)).json()) as {
      definitions: { workloads: { workloadId: string; state: string; failureStreak: number }[] }[];
    };
    const coverage = report.definitions[0]?.workloads ?? [];
    expect(rows.map((row) => row.workloadId).sort()).toEqual(
      coverage.map((row) => row.workloadId).sort(),
    );

    // Each mark is that workload's item in that night (oldest first), or its absence.
    const statuses = new Set<string>();
    for (const row of rows) {
      expect(row.state).toBe(coverage.find((c) => c.workloadId === row.workloadId)?.state);
      expect(row.marks.map((mark) => mark.runId)).toEqual(nights.map((night) => night.runId));
      const expected = await Promise.all(
        nights.map(
          async (night) =>
            (await harness.outcomes.items.get(night.runId, row.workloadId))?.status ?? 'absent',
        ),
      );
      expect({ workload: row.workloadId, marks: row.marks.map((mark) => mark.status) }).toEqual({
        workload: row.workloadId,
        marks: expected,
      });
      for (const [index, mark] of row.marks.entries()) {
        statuses.add(mark.status);
        // A text alternative names the run and the outcome.
        expect(mark.label).toContain(nights[index]?.runId ?? '?');
        expect(mark.label).toContain(mark.status === 'absent' ? 'not in that run' : mark.status);
      }
    }
    // The night means something: every kind of mark is there.
    for (const status of ['succeeded', 'failed', 'skipped', 'absent']) {
      expect([...statuses]).toContain(status);
    }

    // Failing first, the longest streaks first among them.
    const order = rows.map((row) => STATE_ORDER.indexOf(row.state));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(rows[0]?.state).toBe('failing');
    const failing = rows.filter((row) => row.state === 'failing').map((row) => row.streak);
    expect(failing).toEqual([...failing].sort((a, b) => b - a));

    // A legend says what each colour means.
    const legend = await page.locator('.coverage-legend').innerText();
    for (const words of ['succeeded', 'failed', 'canceled', 'skipped', 'not in that run']) {
      expect(legend).toContain(words);
    }

    await mkdir(dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });

    // Sorting by name, and back by state.
    await page.getByRole('link', { name: 'Workload' }).first().click();
    await page.waitForURL(/sort=name/);
    const byName = (await shownRows(page, 'nightly')).map((row) => row.name);
    expect(byName).toEqual([...byName].sort((a, b) => a.localeCompare(b)));
    await page.getByRole('link', { name: 'State' }).first().click();
    await page.waitForURL(/sort=state/);
    expect((await shownRows(page, 'nightly'))[0]?.state).toBe('failing');

    // Each row links to that workload's items.
    const first = rows[0];
    const href = await page
      .locator(`tr.workload[data-workload-id="${first?.workloadId ?? ''}"] a.items`)
      .getAttribute('href');
    const answer = await page.request.get(`${server.url}${href ?? ''}`);
    expect(answer.status()).toBe(200);
    const items = (await answer.json()) as { runId: string; target?: string; itemKey: string }[];
    expect(items.length).toBeGreaterThan(0);
    expect(new Set(items.map((item) => item.itemKey))).toEqual(new Set([first?.workloadId]));
    expect(errors).toEqual([]);
    await page.close();
  });

  it('caps the rows of a large definition with a link to the next ones', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/coverage?rows=5`);
    const rows = await shownRows(page, 'nightly');
    expect(rows).toHaveLength(5);
    await page.getByRole('link', { name: /next 5/ }).click();
    await page.waitForURL(/offset=5/);
    const next = await shownRows(page, 'nightly');
    expect(next.length).toBeGreaterThan(0);
    expect(next.map((row) => row.workloadId)).not.toContain(rows[0]?.workloadId);
    // Text from the platform is escaped, never markup.
    expect(await page.locator('section[data-definition-id="nightly"] script').count()).toBe(0);
    await page.close();
  });
});
