import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_COLUMNS, writeExport } from '../../src/outcomes/outcome-export.js';
import type { ItemRow } from '../../src/outcomes/outcome-records.js';
import { OutcomeQueries } from '../../src/outcomes/outcome-queries.js';
import { Outcomes } from '../../src/outcomes/outcomes.js';
import type { ItemStatus } from '../../src/outcomes/outcome-status.js';
import { connectTestRedis, uniquePrefix } from '../testkit/redis-connection.js';
import { parseCsv } from '../testkit/csv.js';

let redis: Redis;
let prefix: string;
let store: Outcomes;
let queries: OutcomeQueries;

const DAY = 86_400_000;
const firstNight = Date.parse('2025-06-01T01:00:00Z');
const NIGHTS = 3;
const WORKLOADS = 40;

/** Workload w fails on night n when (w + n) % 7 === 0, times out when it is 1; else succeeds. */
function expectedStatus(workload: number, night: number): ItemStatus {
  const mod = (workload + night) % 7;
  return mod === 0 ? 'failed' : mod === 1 ? 'timed-out' : 'succeeded';
}

const runIdOf = (night: number): string => `nightly@2025060${night + 1}T010000Z`;

beforeAll(async () => {
  redis = connectTestRedis();
  prefix = uniquePrefix('queries');
  store = new Outcomes(redis, prefix);
  queries = new OutcomeQueries(redis, prefix);
  for (let night = 0; night < NIGHTS; night++) {
    const runId = runIdOf(night);
    await store.runs.create({
      runId,
      definitionId: 'nightly',
      kind: 'snapshot',
      fireTime: new Date(firstNight + night * DAY),
      trigger: 'cron',
      status: 'queued',
    });
    await store.runs.start(runId);
    for (let workload = 0; workload < WORKLOADS; workload++) {
      const status = expectedStatus(workload, night);
      await store.items.record(runId, `wl-${String(workload).padStart(3, '0')}`, {
        status,
        target: `wl-${workload}`,
        targetName: `prod-vm-${workload}`,
        targetType: 'VSPHERE_VM',
        action: 'snapshot',
        platformJobId: `CREATE_VSPHERE_SNAPSHOT_wl-${workload}_${night}:::0`,
        ...(status === 'failed'
          ? { errorCode: 'INTERNAL', errorMessage: 'snapshot failed, "disk" busy,\nretry later' }
          : {}),
      });
    }
    await store.runs.finish(runId);
  }
  // Another definition, to show filters separate them.
  await store.runs.create({
    runId: 'window@20250602T220000Z',
    definitionId: 'window',
    kind: 'sla-window',
    fireTime: new Date('2025-06-02T22:00:00Z'),
    trigger: 'manual',
    status: 'queued',
  });
  await store.items.record('window@20250602T220000Z', 'gold/pause', {
    status: 'succeeded',
    target: 'sla-gold',
    targetName: 'Gold',
    action: 'pause',
  });
});

afterAll(async () => {
  await redis.quit();
});

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const value of iterable) out.push(value);
  return out;
}

describe('OutcomeQueries', () => {
  it('lists runs newest first with their counts, filtered by definition, status and time', async () => {
    const all = await queries.listRuns();
    expect(all.map((run) => run.runId)).toEqual([
      runIdOf(2),
      'window@20250602T220000Z',
      runIdOf(1),
      runIdOf(0),
    ]);
    const nightly = await queries.listRuns({ definitionId: 'nightly', order: 'oldest-first' });
    expect(nightly.map((run) => run.runId)).toEqual([runIdOf(0), runIdOf(1), runIdOf(2)]);
    expect(nightly[0]?.status).toBe('failed');
    expect(nightly[0]?.counts.total).toBe(WORKLOADS);
    const failedCount = Array.from({ length: WORKLOADS }, (_, w) => expectedStatus(w, 0)).filter(
      (status) => status === 'failed',
    ).length;
    expect(nightly[0]?.counts.failed).toBe(failedCount);

    expect((await queries.listRuns({ statuses: ['queued'] })).map((run) => run.runId)).toEqual([
      'window@20250602T220000Z',
    ]);
    const inRange = await queries.listRuns({
      since: new Date(firstNight + DAY),
      until: new Date(firstNight + DAY),
    });
    expect(inRange.map((run) => run.runId)).toEqual([runIdOf(1)]);
    expect(await queries.listRuns({ limit: 2 })).toHaveLength(2);
  });

  it('filters items by status (indexed and scanned), definition, run and time', async () => {
    const failed = await collect(queries.items({ definitionId: 'nightly', statuses: ['failed'] }));
    const expectedFailed: string[] = [];
    for (let night = NIGHTS - 1; night >= 0; night--) {
      for (let w = 0; w < WORKLOADS; w++) {
        if (expectedStatus(w, night) === 'failed') expectedFailed.push(`${runIdOf(night)}/wl-${w}`);
      }
    }
    expect(failed.map((item) => `${item.runId}/${item.target}`).sort()).toEqual(
      expectedFailed.sort(),
    );
    expect(failed.every((item) => item.errorCode === 'INTERNAL')).toBe(true);

    const succeeded = await collect(
      queries.items({ runId: runIdOf(1), statuses: ['succeeded', 'timed-out'] }),
    );
    const expected = Array.from({ length: WORKLOADS }, (_, w) => expectedStatus(w, 1)).filter(
      (status) => status !== 'failed',
    );
    expect(succeeded).toHaveLength(expected.length);
    expect(succeeded.map((item) => item.itemKey)).toEqual(
      [...succeeded.map((item) => item.itemKey)].sort(),
    );
    expect(succeeded[0]).toMatchObject({
      definitionId: 'nightly',
      kind: 'snapshot',
      fireTime: new Date(firstNight + DAY).toISOString(),
      trigger: 'cron',
    });

    const lastNight = await collect(queries.items({ since: new Date(firstNight + 2 * DAY) }));
    expect(new Set(lastNight.map((item) => item.runId))).toEqual(new Set([runIdOf(2)]));
    const window = await collect(queries.items({ definitionId: 'window' }));
    expect(window.map((item) => item.itemKey)).toEqual(['gold/pause']);
    // An item status filters items whatever the status of their run (this run is still queued).
    const succeededAnywhere = await collect(queries.items({ statuses: ['succeeded'] }));
    expect(succeededAnywhere.some((item) => item.itemKey === 'gold/pause')).toBe(true);
  });

  it('finds every item of one target by id or by name, newest first', async () => {
    const byId = await collect(queries.items({ target: 'wl-5' }));
    expect(byId.map((item) => item.runId)).toEqual([runIdOf(2), runIdOf(1), runIdOf(0)]);
    expect(byId.map((item) => item.status)).toEqual([2, 1, 0].map((n) => expectedStatus(5, n)));
    const byName = await collect(queries.items({ target: 'PROD-VM-5', order: 'oldest-first' }));
    expect(byName.map((item) => item.runId)).toEqual([runIdOf(0), runIdOf(1), runIdOf(2)]);
    const filtered = await collect(queries.items({ target: 'wl-5', statuses: ['failed'] }));
    expect(filtered.every((item) => item.status === 'failed')).toBe(true);
    expect(await collect(queries.items({ target: 'no-such-target' }))).toEqual([]);
    expect(await collect(queries.items({ target: 'Gold' }))).toHaveLength(1);
  });

  it('exports JSONL and CSV that parse back to the same items', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'paw-export-'));
    const rows = await collect(queries.items({ definitionId: 'nightly' }));
    expect(rows).toHaveLength(NIGHTS * WORKLOADS);

    const jsonlFile = join(dir, 'items.jsonl');
    const jsonl = createWriteStream(jsonlFile);
    expect(await writeExport(queries.items({ definitionId: 'nightly' }), 'jsonl', jsonl)).toBe(
      rows.length,
    );
    await new Promise((resolve) => jsonl.end(resolve));
    const parsed = (await readFile(jsonlFile, 'utf8'))
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as ItemRow);
    expect(parsed).toEqual(rows);

    const csvFile = join(dir, 'items.csv');
    const csv = createWriteStream(csvFile);
    await writeExport(queries.items({ definitionId: 'nightly' }), 'csv', csv);
    await new Promise((resolve) => csv.end(resolve));
    const [header, ...records] = parseCsv(await readFile(csvFile, 'utf8'));
    expect(header).toEqual([...EXPORT_COLUMNS]);
    expect(records).toHaveLength(rows.length);
    records.forEach((record, index) => {
      const row = rows[index];
      EXPORT_COLUMNS.forEach((column, position) => {
        const value = row?.[column];
        const text = typeof value === 'object' ? JSON.stringify(value) : String(value ?? '');
        expect(record[position]).toBe(text);
      });
    });
    // The error message with a quote, a comma and a line break survived the round trip.
    expect(
      records.some((record) => record.includes('snapshot failed, "disk" busy,\nretry later')),
    ).toBe(true);
  });
});
