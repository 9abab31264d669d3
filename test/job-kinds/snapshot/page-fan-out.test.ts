import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FaultsInput } from '../../../src/simulator/fault-rules.js';
import type { ItemRow, RunRecord } from '../../../src/outcomes/outcome-records.js';
import { eventually } from '../../testkit/eventually.js';
import { exitWithin } from '../../testkit/exit-within.js';
import { startWorkerTestKit, type WorkerTestKit } from '../../testkit/worker-kit.js';

/** Workloads per page of the listing: a run of this simulator's inventory is several pages. */
const PAGE_SIZE = 5;

/**
 * A snapshot run fans its targets out page by page (docs/worker.md, "A snapshot run"): each page
 * of the listing is recorded, queued for the lanes and its lane jobs added as it arrives, so the
 * first page's workloads are triggered while the next pages are read. The run is not finished by
 * its lanes while pages are still to come, a run job killed between two pages is retried without
 * a second trigger, and a listing that fails after its first page ends the run failed once the
 * items it did record have ended.
 */
describe('a snapshot run fanned out page by page', () => {
  let kit: WorkerTestKit;

  beforeAll(async () => {
    // One walk of every workload (no cluster filter), five a page: about eight pages.
    kit = await startWorkerTestKit(
      { workloads: 40, seed: 3, timeScale: 3000, jobs: { failureRate: 0, cancelRate: 0 } },
      'page-fan-out',
    );
  });
  afterAll(() => kit.close());

  const definition = (id: string) => ({
    id,
    kind: 'snapshot',
    schedule: { cron: '0 1 * * *' },
    targets: { types: ['VSPHERE_VM', 'MSSQL_DATABASE'] },
    retention: { slaDomainName: 'Gold' },
    maxWait: '1h',
  });

  /** Replaces the simulator's faults: `listWorkloads` gets `rule`, every other call none. */
  async function listingFaults(rule: NonNullable<FaultsInput['operations']>['listWorkloads']) {
    await kit.control('PUT', '/_sim/faults', {
      operations: rule === undefined ? {} : { listWorkloads: rule },
    } satisfies FaultsInput);
  }

  /** The simulator's `listWorkloads` requests so far (received, answered or not). */
  function listingCalls(): number {
    return kit.sim.stats().byOperation['listWorkloads'] ?? 0;
  }

  /**
   * Every item ended, each triggered workload exactly once on the platform (skipped ones never),
   * and the run ended after the last of them.
   */
  function expectEachOnce(run: RunRecord, items: readonly ItemRow[]): void {
    const triggers = kit.sim.stats().snapshotTriggers;
    const triggered = items.filter((item) => item.status !== 'skipped');
    expect(triggered.length).toBeGreaterThan(PAGE_SIZE);
    for (const item of triggered) {
      expect(item, `item ${item.itemKey}`).toMatchObject({ status: 'succeeded' });
      expect(triggers[item.itemKey], `triggers of ${item.itemKey}`).toBe(1);
    }
    for (const item of items.filter((one) => one.status === 'skipped')) {
      expect(triggers[item.itemKey]).toBeUndefined();
    }
    expect(Object.keys(triggers).sort()).toEqual(triggered.map((item) => item.itemKey).sort());
    expect(run.counts).toMatchObject({ total: items.length, queued: 0, running: 0 });
    const lastEnd = Math.max(...items.map((item) => Date.parse(item.finishedAt ?? '')));
    expect(Date.parse(run.finishedAt ?? '')).toBeGreaterThanOrEqual(lastEnd);
  }

  it('triggers the first page’s workloads before the last page is listed, each once', async () => {
    await kit.control('DELETE', '/_sim/stats');
    await listingFaults({ latency: { fixedMs: 400 } });
    const worker = await kit.startInProcessWorker({ platform: { pageSize: PAGE_SIZE } });
    try {
      const runId = await kit.fire(definition('pages-first-trigger'));
      // How many pages had been asked for when the platform saw the run's first trigger.
      const asked = await eventually(
        'the first trigger',
        () =>
          Object.keys(kit.sim.stats().snapshotTriggers).length > 0 ? listingCalls() : undefined,
        { intervalMs: 10 },
      );
      const run = await kit.waitForRun(runId);
      await kit.platformSettled();
      const pages = listingCalls();
      expect(pages).toBeGreaterThanOrEqual(6);
      expect(asked).toBeLessThan(pages);
      expect(run.status).toBe('succeeded');
      expectEachOnce(run, await kit.items(runId));
    } finally {
      await worker.stop();
      await listingFaults(undefined);
    }
  });

  it('is not finished by its lanes while a page is still to come, though every item so far ended', async () => {
    await kit.control('DELETE', '/_sim/stats');
    // The first page in a second; once it is asked for, the next ones take 6 s each: the lanes
    // end every item of the first page while the second is held.
    await listingFaults({ latency: { fixedMs: 1_000 } });
    const worker = await kit.startInProcessWorker({ platform: { pageSize: PAGE_SIZE } });
    try {
      const runId = await kit.fire(definition('pages-no-early-end'));
      await eventually('the first page to be asked for', () => listingCalls() >= 1, {
        intervalMs: 10,
      });
      await listingFaults({ latency: { fixedMs: 6_000 } });
      // Every item recorded so far has ended, and the second page is not in yet.
      const between = await eventually(
        'every item of the first page to end',
        async () => {
          const run = await kit.outcomes.runs.get(runId);
          const counts = run?.counts;
          return counts !== undefined &&
            counts.total > 0 &&
            counts.queued + counts.running === 0 &&
            counts.succeeded > 0
            ? run
            : undefined;
        },
        { intervalMs: 20, timeoutMs: 20_000 },
      );
      expect(between.status).toBe('running');
      expect(between.counts.total).toBeLessThanOrEqual(PAGE_SIZE);
      // Still running a moment later: no lane write finished it.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await kit.outcomes.runs.get(runId))?.status).toBe('running');

      await listingFaults({ latency: { fixedMs: 50 } });
      const run = await kit.waitForRun(runId, 90_000);
      const items = await kit.items(runId);
      expect(run.status).toBe('succeeded');
      expect(run.counts.total).toBeGreaterThan(between.counts.total);
      expectEachOnce(run, items);
    } finally {
      await worker.stop();
      await listingFaults(undefined);
    }
  }, 120_000);

  it('a worker killed between two pages: the retried run job records each workload once, each triggered once', async () => {
    await kit.control('DELETE', '/_sim/stats');
    await listingFaults({ latency: { fixedMs: 300 } });
    try {
      // Dies once the second page is queued: the first page's workloads are being triggered by
      // then (its lanes run in the same process, and die with it).
      const dying = kit.paw(['worker'], {
        PAW_PLATFORM_PAGE_SIZE: String(PAGE_SIZE),
        PAW_CRASH_AT: 'snapshot.after-page-queued@2',
        PAW_LOG_LEVEL: 'info',
      });
      const runId = await kit.fire(definition('pages-killed'));
      expect(await exitWithin(dying.exited, 'the worker armed between two pages', 60_000)).toEqual({
        code: null,
        signal: 'SIGKILL',
      });
      const before = await kit.outcomes.runs.get(runId);
      expect(before?.status).toBe('running');
      expect(before?.counts.total).toBeGreaterThan(0);

      const survivor = kit.paw(['worker'], {
        PAW_PLATFORM_PAGE_SIZE: String(PAGE_SIZE),
        PAW_LOG_LEVEL: 'info',
      });
      const run = await kit.waitForRun(runId, 120_000);
      expect(await exitWithin(survivor.stop('SIGTERM'), 'the survivor')).toEqual({
        code: 0,
        signal: null,
      });
      await kit.platformSettled();
      const items = await kit.items(runId);
      expect(run.status).toBe('succeeded');
      expect(run.counts.total).toBeGreaterThan(before?.counts.total ?? 0);
      expect(new Set(items.map((item) => item.itemKey)).size).toBe(items.length);
      expectEachOnce(run, items);
    } finally {
      await listingFaults(undefined);
    }
  }, 180_000);

  it('a run job taken back from dead workers more than worker.maxStalledCount times mid fan-out: the run goes on with the items recorded, and ends failed saying so', async () => {
    await kit.control('DELETE', '/_sim/stats');
    await listingFaults({ latency: { fixedMs: 300 } });
    try {
      // Two workers die, one after the other, with the first page's items recorded and not yet
      // queued for a lane (no lane job exists): the run job is taken back twice.
      let runId = '';
      for (const which of ['first', 'second']) {
        const dying = kit.paw(['worker'], {
          PAW_PLATFORM_PAGE_SIZE: String(PAGE_SIZE),
          PAW_CRASH_AT: 'snapshot.after-items-recorded',
          PAW_LOG_LEVEL: 'info',
        });
        if (which === 'first') runId = await kit.fire(definition('pages-given-up'));
        expect(
          await exitWithin(dying.exited, `the ${which} worker armed after a page`, 60_000),
        ).toEqual({ code: null, signal: 'SIGKILL' });
      }
      const before = await kit.outcomes.runs.get(runId);
      expect(before).toMatchObject({ status: 'running', counts: { running: 0 } });
      expect(before?.counts.queued).toBeGreaterThan(0);

      // A worker that allows one take-back gives the run job up, as BullMQ did, without a
      // fan-out of its own.
      const worker = await kit.startInProcessWorker({
        platform: { pageSize: PAGE_SIZE },
        worker: { maxStalledCount: 1 },
      });
      try {
        const run = await kit.waitForRun(runId, 60_000);
        await kit.platformSettled();
        const items = await kit.items(runId);
        expect(run).toMatchObject({ status: 'failed', errorCode: 'STALLED' });
        expect(run.errorMessage).toMatch(
          new RegExp(
            `^the run's targets could not all be resolved: it goes on with the ${items.length} items recorded before the failure, and ends failed: job \\S+ was taken back from a dead worker 2 times, more than worker.maxStalledCount \\(1\\) allows`,
          ),
        );
        // Only the first page, recorded by both dying workers, each workload triggered once
        // by the lanes the give-up added.
        expect(items.length).toBe(before?.counts.total);
        const triggers = kit.sim.stats().snapshotTriggers;
        for (const item of items.filter((one) => one.status !== 'skipped')) {
          expect(item, `item ${item.itemKey}`).toMatchObject({ status: 'succeeded' });
          expect(triggers[item.itemKey], `triggers of ${item.itemKey}`).toBe(1);
        }
        expect(run.counts).toMatchObject({ total: items.length, queued: 0, running: 0 });
      } finally {
        await worker.stop();
      }
    } finally {
      await listingFaults(undefined);
    }
  }, 180_000);

  it('a page that fails for good after the first: the run goes on with the items recorded, and ends failed with the reason once they end', async () => {
    await kit.control('DELETE', '/_sim/stats');
    await listingFaults({ latency: { fixedMs: 500 } });
    const worker = await kit.startInProcessWorker({ platform: { pageSize: PAGE_SIZE } });
    try {
      const runId = await kit.fire(definition('pages-listing-fails'));
      await eventually('the first page to be asked for', () => listingCalls() >= 1, {
        intervalMs: 10,
      });
      // Every listing call from the second page on fails (every retry of the run job too).
      await listingFaults({ errorRate: 1, errorStatuses: [500] });
      const run = await kit.waitForRun(runId, 60_000);
      await kit.platformSettled();
      const items = await kit.items(runId);
      expect(run.status).toBe('failed');
      expect(run.errorCode).toMatch(/^[A-Z_]+$/);
      expect(run.errorMessage).toMatch(
        new RegExp(
          `^the run's targets could not all be resolved: it goes on with the ${items.length} items recorded before the failure, and ends failed: `,
        ),
      );
      // Only the first page's workloads, each triggered once, every one ended before the run.
      expect(items.length).toBeGreaterThan(0);
      expect(items.length).toBeLessThanOrEqual(PAGE_SIZE);
      const triggers = kit.sim.stats().snapshotTriggers;
      for (const item of items.filter((one) => one.status !== 'skipped')) {
        expect(item, `item ${item.itemKey}`).toMatchObject({ status: 'succeeded' });
        expect(triggers[item.itemKey]).toBe(1);
      }
      expect(run.counts).toMatchObject({ total: items.length, queued: 0, running: 0 });
      const lastEnd = Math.max(...items.map((item) => Date.parse(item.finishedAt ?? '')));
      expect(Date.parse(run.finishedAt ?? '')).toBeGreaterThanOrEqual(lastEnd);
    } finally {
      await worker.stop();
      await listingFaults(undefined);
    }
  });

  it('a listing that fails before anything is recorded fails the run at once, as before', async () => {
    await listingFaults({ errorRate: 1, errorStatuses: [500] });
    const worker = await kit.startInProcessWorker({ platform: { pageSize: PAGE_SIZE } });
    try {
      const runId = await kit.fire(definition('pages-listing-fails-first'));
      const run = await kit.waitForRun(runId, 60_000);
      expect(run).toMatchObject({ status: 'failed', counts: { total: 0 } });
      expect(run.errorMessage).not.toMatch(/could not all be resolved/);
    } finally {
      await worker.stop();
      await listingFaults(undefined);
    }
  });

  it('a page that fails for a while: the run job’s retry goes on from where the records are, each workload triggered once', async () => {
    await kit.control('DELETE', '/_sim/stats');
    await listingFaults({ latency: { fixedMs: 300 } });
    const worker = await kit.startInProcessWorker({ platform: { pageSize: PAGE_SIZE } });
    try {
      const runId = await kit.fire(definition('pages-listing-retried'));
      await eventually('the second page to be asked for', () => listingCalls() >= 2, {
        intervalMs: 10,
      });
      // The next four listing calls fail: more than the client's own three tries, so the run
      // job fails this attempt and the queue retries it.
      await listingFaults({ errorRate: 1, errorStatuses: [503], times: 4 });
      const run = await kit.waitForRun(runId, 60_000);
      await kit.platformSettled();
      expect(run).toMatchObject({ status: 'succeeded', attempts: 2 });
      expectEachOnce(run, await kit.items(runId));
    } finally {
      await worker.stop();
      await listingFaults(undefined);
    }
  });
});
