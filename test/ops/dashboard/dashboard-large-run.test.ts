import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Settings } from '../../../src/config/settings-schema.js';
import { Outcomes } from '../../../src/outcomes/outcomes.js';
import type { ItemUpdate } from '../../../src/outcomes/outcome-records.js';
import { PawMetrics } from '../../../src/ops/metrics/paw-metrics.js';
import { startOpsServer, type OpsServer } from '../../../src/ops/ops-server.js';
import { exampleDefinition } from '../../testkit/definitions.js';
import { captureLogs } from '../../testkit/log-capture.js';
import { connectTestRedis } from '../../testkit/redis-connection.js';
import { opsSettings } from '../ops-settings.js';

/** More items than the dashboard reads for one picture (10,000): it must sample, not load all. */
const ITEMS = 20_000;
const MINUTE = 60_000;

interface RunViewJson {
  items: unknown[];
  itemsNotShown: number;
  progress: {
    total: number;
    ended: number;
    failed: number;
    bucketSeconds: number;
    buckets: { at: string; succeeded: number; failed: number; other: number }[];
    sampled?: { read: number; of: number };
  };
}

/**
 * A run larger than the dashboard's bound: its picture is drawn from a bounded sample plus its
 * failures read exactly, and still adds up to the run's own counts; its item list stays short.
 */
describe('the dashboard with a run of 20,000 items', () => {
  const logs = captureLogs('info');
  const redis = connectTestRedis();
  let settings: Settings;
  let server: OpsServer;
  const runId = 'big-night@20250106T010000Z';
  const running = 'big-night@20250107T010000Z';

  beforeAll(async () => {
    settings = await opsSettings('large-run');
    const start = Date.parse('2025-01-06T01:00:00Z');
    let now = new Date(start);
    const store = new Outcomes(redis, settings.redis.prefix, undefined, () => now);
    for (const id of [runId, running]) {
      await store.runs.create({
        runId: id,
        definitionId: 'big-night',
        kind: 'snapshot',
        fireTime: new Date(start),
        trigger: 'cron',
        status: 'queued',
      });
      await store.runs.start(id);
    }
    // Items end over 60 minutes; one in 500 fails. The second run's items are all still queued.
    const writes: Promise<unknown>[] = [];
    for (let index = 0; index < ITEMS; index++) {
      const failed = index % 500 === 0;
      const update: ItemUpdate = {
        status: failed ? 'failed' : 'succeeded',
        target: `vm-${index}`,
        startedAt: new Date(start + (index % 60) * MINUTE),
        finishedAt: new Date(start + (index % 60) * MINUTE + 30_000),
        ...(failed ? { errorCode: 'SNAPSHOT_FAILED' } : {}),
      };
      writes.push(store.items.record(runId, `vm-${index}`, update));
      writes.push(store.items.record(running, `vm-${index}`, { status: 'queued' }));
      if (writes.length >= 1000) await Promise.all(writes.splice(0));
    }
    await Promise.all(writes);
    now = new Date(start + 61 * MINUTE);
    await store.runs.finish(runId);
    const started = await startOpsServer({
      settings,
      logger: logs.logger,
      role: 'scheduler',
      version: 'test',
      metrics: new PawMetrics({ processMetrics: false }),
      definitions: [exampleDefinition('snapshot', { id: 'big-night' })],
      port: 0,
    });
    if (started === undefined) throw new Error('no ops server');
    server = started;
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    redis.disconnect();
  });

  it('draws the ended run from a sample scaled to its exact counts, failures read whole', async () => {
    const view = (await (
      await request(`${server.url}/api/runs/${encodeURIComponent(runId)}?items=25`)
    ).body.json()) as RunViewJson;
    expect(view.items).toHaveLength(25);
    expect(view.itemsNotShown).toBe(ITEMS - 25);
    const { progress } = view;
    expect(progress.sampled).toEqual({ read: expect.any(Number) as unknown, of: ITEMS });
    expect(progress.sampled?.read).toBeLessThanOrEqual(10_000 + ITEMS / 500);
    expect(progress.total).toBe(ITEMS);
    expect(progress.ended).toBe(ITEMS);
    expect(progress.failed).toBe(ITEMS / 500);
    const sum = (pick: (bucket: RunViewJson['progress']['buckets'][number]) => number) =>
      progress.buckets.reduce((total, bucket) => total + pick(bucket), 0);
    expect(sum((bucket) => bucket.succeeded)).toBe(ITEMS - ITEMS / 500);
    expect(sum((bucket) => bucket.failed)).toBe(ITEMS / 500);
    // A run of an hour in 2-minute slices; items failed in minutes 0, 20 and 40 (index % 500
    // === 0, and index % 60 is the minute).
    expect(progress.bucketSeconds).toBe(120);
    expect(
      progress.buckets.filter((bucket) => bucket.failed > 0).map((bucket) => bucket.at),
    ).toEqual(['2025-01-06T01:00:00.000Z', '2025-01-06T01:20:00.000Z', '2025-01-06T01:40:00.000Z']);
  });

  it('shows the page with both runs, listing a bounded number of the running one’s items', async () => {
    const response = await request(`${server.url}/`);
    expect(response.statusCode).toBe(200);
    const page = await response.body.text();
    const runningRun = new RegExp(
      `<details[^>]*data-run-id="${running}"[^>]*>([\\s\\S]*?)</details>`,
    ).exec(page);
    expect((runningRun?.[1] ?? '').match(/<tr class="item"/g)).toHaveLength(25);
    expect(runningRun?.[1]).toContain(`… and ${ITEMS - 25} more items`);
    expect(page).toMatch(/drawn from \d+ of 20000 items, scaled to the run&#39;s counts/);
  });
});
