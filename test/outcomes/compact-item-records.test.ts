import { PassThrough } from 'node:stream';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeExport } from '../../src/outcomes/outcome-export.js';
import { OutcomeKeys } from '../../src/outcomes/outcome-keys.js';
import { OutcomeQueries } from '../../src/outcomes/outcome-queries.js';
import type { ItemRecord, ItemUpdate } from '../../src/outcomes/outcome-records.js';
import { Outcomes } from '../../src/outcomes/outcomes.js';
import { RunItemsReader } from '../../src/outcomes/run-items-reader.js';
import { connectTestRedis, uniquePrefix } from '../testkit/redis-connection.js';

let redis: Redis;

beforeAll(() => {
  redis = connectTestRedis();
});

afterAll(async () => {
  await redis.quit();
});

const runId = 'nightly@20250601T010000Z';
const workloadId = 'ad5a5d7e-7a47-4821-9720-8f0eaed25ea4';
const jobId = `CREATE_VSPHERE_SNAPSHOT_${workloadId}_1e251952-d561-4232-8a5a-355eae33dc52:::0`;

/** A snapshot item as a night leaves it (src/job-kinds/snapshot/item-step.ts). */
const snapshot: ItemUpdate = {
  status: 'succeeded',
  target: workloadId,
  targetName: 'Prod-VM-001',
  targetType: 'VSPHERE_VM',
  action: 'snapshot',
  attempts: 1,
  platformJobId: jobId,
  startedAt: '2025-06-01T01:00:05.000Z',
  finishedAt: '2025-06-01T01:10:00.000Z',
  details: {
    trackedVia: 'job',
    platformStatus: 'SUCCEEDED',
    clusterId: '339c9fd7-53c5-4a2f-afaa-79675d61dcc9',
    triggeredAt: '2025-06-01T01:00:05.600Z',
    onDemandSnapshot: 'vsphere-vm',
    jobIdFrom: 'trigger',
    firstTriggerAttemptAt: '2025-06-01T01:00:05.000Z',
    triggersSent: 1,
    statusUrl: `https://rsc.example.com/api/rest/workloads/${workloadId}/snapshot-jobs/${encodeURIComponent(jobId)}`,
    retentionSlaDomainId: null,
    snapshotId: '65569f6f-f338-4469-a218-845fa57a4967',
    progress: 100,
  },
};

/** Values the compact form must not confuse with its own marks and names. */
const awkward: ItemUpdate = {
  status: 'failed',
  target: 'sla-1',
  targetName: 'Gold on c1',
  errorCode: 'INTERNAL',
  errorMessage: `failed for item-2: a NUL \u0000 here, \u0000\u0000 there, and / slashes \\/`,
  reason: 'item-2 and item-2 again',
  details: {
    c: 'a detail named like a compact name',
    '~x': 'a detail behind the escape',
    triggeredAt: 'not a time',
    activitySince: '2025-06-01T01:00:05Z',
    clusterId: 'item-2',
    note: '',
  },
};

function expected(itemKey: string, update: ItemUpdate): Omit<ItemRecord, 'updatedAt'> {
  const { startedAt, finishedAt, ...rest } = update;
  return {
    runId,
    itemKey,
    ...rest,
    ...(startedAt == null ? {} : { startedAt: new Date(startedAt).toISOString() }),
    ...(finishedAt == null ? {} : { finishedAt: new Date(finishedAt).toISOString() }),
  } as Omit<ItemRecord, 'updatedAt'>;
}

describe('compact item records', () => {
  it('every reader sees each field as recorded, however it is stored', async () => {
    const prefix = uniquePrefix('compact');
    const store = new Outcomes(redis, prefix);
    await store.runs.create({
      runId,
      definitionId: 'nightly',
      kind: 'snapshot',
      fireTime: new Date('2025-06-01T01:00:00Z'),
      trigger: 'cron',
      status: 'queued',
    });
    await store.items.create(runId, [[workloadId, { status: 'queued', target: workloadId }]]);
    await store.items.record(runId, workloadId, snapshot);
    await store.items.record(runId, 'item-2', awkward);
    const wanted = [expected(workloadId, snapshot), expected('item-2', awkward)];

    const withoutUpdatedAt = ({ updatedAt: _at, ...item }: ItemRecord) => item;
    const byKey = (a: { itemKey: string }, b: { itemKey: string }) =>
      a.itemKey.localeCompare(b.itemKey);
    const got = [await store.items.get(runId, workloadId), await store.items.get(runId, 'item-2')];
    expect(got.map((item) => withoutUpdatedAt(item as ItemRecord))).toEqual(wanted);

    const queries = new OutcomeQueries(redis, prefix);
    const rows: ItemRecord[] = [];
    for await (const row of queries.items({ runId })) rows.push(row);
    expect(rows).toHaveLength(2);
    for (const [index, row] of rows.sort(byKey).entries())
      expect(row).toMatchObject(wanted.sort(byKey)[index] ?? {});
    const failed: ItemRecord[] = [];
    for await (const row of queries.items({ statuses: ['failed'] })) failed.push(row);
    expect(failed.map(withoutUpdatedAt)).toEqual([
      expect.objectContaining(expected('item-2', awkward)),
    ]);
    const history: ItemRecord[] = [];
    for await (const row of queries.items({ target: 'prod-vm-001' })) history.push(row);
    expect(history).toEqual([expect.objectContaining(expected(workloadId, snapshot))]);

    const reader = new RunItemsReader(redis, prefix);
    const sample = await reader.sample(runId, 10);
    expect(sample.items.map(withoutUpdatedAt).sort(byKey)).toEqual(wanted.sort(byKey));
    const out = new PassThrough();
    let text = '';
    out.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    await writeExport(queries.items({ runId }), 'jsonl', out);
    const exported = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as ItemRecord);
    exported.sort(byKey);
    for (const [index, item] of wanted.sort(byKey).entries())
      expect(exported[index]).toMatchObject(item);
  });

  it('stores a snapshot item without what its key already says, in under 600 bytes', async () => {
    const prefix = uniquePrefix('compact');
    const store = new Outcomes(redis, prefix);
    await store.runs.create({
      runId,
      definitionId: 'nightly',
      kind: 'snapshot',
      fireTime: new Date('2025-06-01T01:00:00Z'),
      trigger: 'cron',
      status: 'queued',
    });
    await store.items.record(runId, workloadId, snapshot);
    const stored = (await redis.hget(new OutcomeKeys(prefix).items(runId), workloadId)) ?? '';
    // The workload id was there four times (target, job id, twice in the status link), the
    // details' names in full, two times as ISO strings and every `/` escaped.
    expect(stored).not.toContain(workloadId);
    expect(stored).not.toContain('\\/');
    expect(stored).not.toContain('firstTriggerAttemptAt');
    expect(Buffer.byteLength(stored)).toBeLessThan(600);
  });

  it('reads a record stored before the compact form as it was', async () => {
    const prefix = uniquePrefix('compact');
    const store = new Outcomes(redis, prefix);
    await store.runs.create({
      runId,
      definitionId: 'nightly',
      kind: 'snapshot',
      fireTime: new Date('2025-06-01T01:00:00Z'),
      trigger: 'cron',
      status: 'queued',
    });
    // As pawRecordItem wrote it before: the target in full, long detail names, cjson's `\/`.
    const old = JSON.stringify({
      st: 'succeeded',
      tg: workloadId,
      tn: 'Prod-VM-001',
      pj: jobId,
      ua: 1748739600000,
      dt: { triggeredAt: '2025-06-01T01:00:05.600Z', statusUrl: 'https://x/y' },
    }).replaceAll('/', '\\/');
    await redis.hset(new OutcomeKeys(prefix).items(runId), workloadId, old);
    expect(await store.items.get(runId, workloadId)).toEqual({
      runId,
      itemKey: workloadId,
      status: 'succeeded',
      target: workloadId,
      targetName: 'Prod-VM-001',
      platformJobId: jobId,
      updatedAt: new Date(1748739600000).toISOString(),
      details: { triggeredAt: '2025-06-01T01:00:05.600Z', statusUrl: 'https://x/y' },
    });
    // An update in the compact form on top of it: the newer value of a detail wins.
    await store.items.record(
      runId,
      workloadId,
      { status: 'succeeded', details: { triggeredAt: '2025-06-01T02:00:00.000Z' } },
      { mergeDetails: true },
    );
    expect((await store.items.get(runId, workloadId))?.details).toEqual({
      triggeredAt: '2025-06-01T02:00:00.000Z',
      statusUrl: 'https://x/y',
    });
  });
});
