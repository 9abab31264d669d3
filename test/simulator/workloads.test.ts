// Conformance tests read JSON bodies of many shapes and assert each: `any` is the honest type.
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-return */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSimulator, type TestSimulator } from './simulator-fixture.js';
import { eventually } from '../testkit/eventually.js';

interface Workload {
  id: string;
  name: string;
  type: string;
  clusterId: string;
  clusterName: string;
  slaDomainId: string | null;
  slaDomainName: string | null;
}

describe('workloads', () => {
  let t: TestSimulator;

  beforeAll(async () => {
    t = await startTestSimulator({ workloads: 137, seed: 11 });
  });
  afterAll(() => t.close());

  it('lists every workload once across pages, in name order, with a stable count', async () => {
    const seen: Workload[] = [];
    let after: string | undefined;
    let pages = 0;
    for (;;) {
      const query =
        after === undefined ? '?first=40' : `?first=40&after=${encodeURIComponent(after)}`;
      const response = await t.rest('GET', `/workloads${query}`);
      expect(response.status).toBe(200);
      expect(response.body.error).toBeNull();
      const { nodes, count, pageInfo } = response.body.data;
      expect(count).toBe(137);
      expect(pageInfo.hasPreviousPage).toBe(pages > 0);
      seen.push(...(nodes as Workload[]));
      pages++;
      if (!pageInfo.hasNextPage) break;
      expect(pageInfo.endCursor).toEqual(expect.any(String));
      after = pageInfo.endCursor as string;
    }
    expect(pages).toBe(4);
    expect(seen).toHaveLength(137);
    expect(new Set(seen.map((workload) => workload.id)).size).toBe(137);
    const names = seen.map((workload) => `${workload.name}\u0000${workload.id}`);
    expect(names).toEqual([...names].sort());
    for (const workload of seen) {
      expect(workload.name).toMatch(/^(prod|dev|test|stage|qa|dr)-[a-z0-9]+-\d{3,}$/);
      expect(Object.keys(workload).sort()).toEqual(
        ['clusterId', 'clusterName', 'id', 'name', 'slaDomainId', 'slaDomainName', 'type'].sort(),
      );
    }
  });

  it('uses 50 as the default page size and answers an empty page with null cursors', async () => {
    const response = await t.rest('GET', '/workloads');
    expect(response.body.data.nodes).toHaveLength(50);
    const none = await t.rest('GET', '/workloads?name=no-such-name');
    expect(none.body.data).toEqual({
      nodes: [],
      count: 0,
      pageInfo: { startCursor: null, endCursor: null, hasNextPage: false, hasPreviousPage: false },
    });
  });

  it('filters by name, type, cluster and SLA Domain, counting all matches', async () => {
    const all = (await t.rest('GET', '/workloads?first=1000')).body.data.nodes as Workload[];
    const sample = all.find(
      (workload) => workload.type === 'VSPHERE_VM' && workload.slaDomainId !== null,
    );
    if (sample === undefined) throw new Error('the inventory has no protected VM');
    const checks: [string, (workload: Workload) => boolean][] = [
      [
        `name=${sample.name.slice(0, 6).toUpperCase()}`,
        (w) => w.name.includes(sample.name.slice(0, 6)),
      ],
      ['type=MSSQL_DATABASE', (w) => w.type === 'MSSQL_DATABASE'],
      [`clusterId=${sample.clusterId}`, (w) => w.clusterId === sample.clusterId],
      [`slaDomainId=${sample.slaDomainId ?? ''}`, (w) => w.slaDomainId === sample.slaDomainId],
      [
        `type=VSPHERE_VM&clusterId=${sample.clusterId}`,
        (w) => w.type === 'VSPHERE_VM' && w.clusterId === sample.clusterId,
      ],
    ];
    for (const [query, predicate] of checks) {
      const expected = all.filter(predicate);
      expect(expected.length).toBeGreaterThan(0);
      const response = await t.rest('GET', `/workloads?first=5&${query}`);
      expect(response.status).toBe(200);
      expect(response.body.data.count).toBe(expected.length);
      expect(response.body.data.nodes).toEqual(expected.slice(0, 5));
      expect(response.body.data.pageInfo.hasNextPage).toBe(expected.length > 5);
    }
  });

  it('has a realistic mix: several types, several clusters, some unprotected', async () => {
    const all = (await t.rest('GET', '/workloads?first=1000')).body.data.nodes as Workload[];
    expect(new Set(all.map((workload) => workload.type)).size).toBeGreaterThanOrEqual(5);
    expect(new Set(all.map((workload) => workload.clusterId)).size).toBeGreaterThanOrEqual(3);
    expect(all.some((workload) => workload.slaDomainId === null)).toBe(true);
  });

  it('gets one workload, and answers NOT_FOUND in the envelope for an unknown id', async () => {
    const id = t.fixtures.workloads.samples.vsphereVm ?? '';
    const response = await t.rest('GET', `/workloads/${id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      data: expect.objectContaining({ id, type: 'VSPHERE_VM' }) as object,
      error: null,
      metadata: null,
    });
    const missing = await t.rest('GET', '/workloads/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      data: null,
      error: { code: 'NOT_FOUND', message: expect.stringContaining('workload') as string },
      metadata: null,
    });
  });

  it('refuses malformed parameters and cursors with INVALID_ARGUMENT', async () => {
    for (const query of [
      'first=0',
      'first=1001',
      'first=ten',
      'first=1.5',
      'type=FLOPPY_DISK',
      'after=garbage',
    ]) {
      const response = await t.rest('GET', `/workloads?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.data).toBeNull();
      expect(response.body.metadata).toBeNull();
      expect(response.body.error.code).toBe('INVALID_ARGUMENT');
      expect(response.body.error.message).toEqual(expect.any(String));
    }
    // A cursor of another collection is refused too.
    const clusters = await t.rest('GET', '/clusters?first=1');
    const foreign = clusters.body.data.pageInfo.endCursor as string;
    const response = await t.rest('GET', `/workloads?after=${encodeURIComponent(foreign)}`);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('INVALID_ARGUMENT');
  });

  it('answers an unknown REST route with NOT_FOUND in the envelope', async () => {
    const response = await t.rest('GET', '/no-such-thing');
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('NOT_FOUND');
  });

  it('lists a protected workload’s scheduled snapshots, newest first', async () => {
    const all = (await t.rest('GET', '/workloads?first=1000')).body.data.nodes as Workload[];
    const protectedOne = all.find((workload) => workload.slaDomainId !== null);
    const response = await t.rest('GET', `/workloads/${protectedOne?.id ?? ''}/snapshots`);
    expect(response.status).toBe(200);
    const nodes = response.body.data.nodes as {
      date: string;
      isOnDemand: boolean;
      slaDomainId: string;
      expirationDate: string;
    }[];
    expect(nodes.length).toBeGreaterThan(0);
    expect(response.body.data.count).toBe(nodes.length);
    const dates = nodes.map((node) => Date.parse(node.date));
    expect(dates).toEqual([...dates].sort((a, b) => b - a));
    for (const node of nodes) {
      expect(node.isOnDemand).toBe(false);
      expect(node.slaDomainId).toBe(protectedOne?.slaDomainId);
      expect(Date.parse(node.expirationDate)).toBeGreaterThan(Date.parse(node.date));
    }
    expect((await t.rest('GET', '/workloads/unknown/snapshots')).status).toBe(404);
  });
});

describe('on-demand snapshots and their jobs', () => {
  let t: TestSimulator;

  beforeAll(async () => {
    // Jobs of ~1500 platform seconds take ~1.5 real seconds at 1000x.
    t = await startTestSimulator({
      workloads: 80,
      seed: 5,
      timeScale: 1000,
      jobs: {
        failureRate: 0,
        cancelRate: 0,
        durationSeconds: { median: 1500, sigma: 0.1, min: 1000 },
      },
    });
  });
  afterAll(() => t.close());

  it('triggers a job (202), answers the job in data and its status link in metadata', async () => {
    const workloadId = t.fixtures.workloads.samples.vsphereVm ?? '';
    const response = await t.rest('POST', `/workloads/${workloadId}/snapshots`, {
      json: { slaDomainId: t.fixtures.slaDomains.find((domain) => domain.name === 'Gold')?.id },
    });
    expect(response.status).toBe(202);
    expect(response.body.error).toBeNull();
    const job = response.body.data;
    expect(job.id).toMatch(new RegExp(`^CREATE_VSPHERE_SNAPSHOT_${workloadId}_[0-9a-f-]{36}:::0$`));
    expect(job.workloadId).toBe(workloadId);
    expect(job.status).toBe('QUEUED');
    expect(job.progress).toBe(0);
    expect(job.startTime).toBeNull();
    const link = response.body.metadata.jobStatusUrl as string;
    expect(link).toBe(
      `${t.sim.baseUrl}/api/rest/workloads/${workloadId}/snapshot-jobs/${encodeURIComponent(job.id)}`,
    );
    expect(job.links).toEqual([{ href: link, rel: 'self' }]);

    // Poll it to the end: statuses move forward, progress never falls.
    const token = await t.token();
    const statuses: string[] = [];
    let lastProgress = 0;
    const done = await eventually('the job to succeed', async () => {
      const poll = await t.api('GET', link.slice(t.sim.baseUrl.length), { token });
      expect(poll.status).toBe(200);
      const current = poll.body.data;
      if (statuses.at(-1) !== current.status) statuses.push(current.status as string);
      expect(current.progress).toBeGreaterThanOrEqual(lastProgress);
      lastProgress = current.progress as number;
      return current.status === 'SUCCEEDED' ? current : undefined;
    });
    expect(statuses).toContain('RUNNING');
    const order = ['QUEUED', 'ACQUIRING', 'RUNNING', 'FINISHING', 'SUCCEEDED'];
    expect(statuses.map((status) => order.indexOf(status))).toEqual(
      [...statuses.map((status) => order.indexOf(status))].sort((a, b) => a - b),
    );
    expect(done.progress).toBe(100);
    expect(Date.parse(done.endTime as string)).toBeGreaterThan(
      Date.parse(done.startTime as string),
    );
    expect(done.snapshotId).toEqual(expect.any(String));

    // The finished snapshot appears in the workload's snapshots, with the chosen retention.
    const snapshots = await t.rest('GET', `/workloads/${workloadId}/snapshots`);
    const snapshot = (snapshots.body.data.nodes as { id: string }[]).find(
      (node) => node.id === done.snapshotId,
    );
    expect(snapshot).toMatchObject({ isOnDemand: true, jobId: job.id, workloadId });
    expect(snapshots.body.data.nodes[0].id).toBe(done.snapshotId);

    // And in events: queued, running, success, with the workload as object.
    const events = await t.rest('GET', `/events?objectId=${workloadId}&first=100`);
    const ofJob = (
      events.body.data.nodes as { jobId: string; status: string; type: string }[]
    ).filter((event) => event.jobId === job.id);
    expect(ofJob.map((event) => event.status)).toEqual(['SUCCESS', 'RUNNING', 'QUEUED']);
    expect(ofJob.every((event) => event.type === 'BACKUP')).toBe(true);
  });

  it('keeps a snapshot forever when neither the request nor the workload names an SLA Domain', async () => {
    const workloadId = t.fixtures.workloads.samples.unprotected;
    if (workloadId === undefined) throw new Error('the inventory has no unprotected VM');
    const trigger = await t.rest('POST', `/workloads/${workloadId}/snapshots`);
    expect(trigger.status).toBe(202);
    const jobId = trigger.body.data.id as string;
    const done = await eventually('the job to succeed', async () => {
      const poll = await t.rest(
        'GET',
        `/workloads/${workloadId}/snapshot-jobs/${encodeURIComponent(jobId)}`,
      );
      return poll.body.data.status === 'SUCCEEDED' ? poll.body.data : undefined;
    });
    const snapshots = await t.rest('GET', `/workloads/${workloadId}/snapshots`);
    const snapshot = (snapshots.body.data.nodes as { id: string }[]).find(
      (node) => node.id === done.snapshotId,
    );
    expect(snapshot).toMatchObject({ slaDomainId: null, expirationDate: null });
  });

  it('takes SQL Server database snapshots with MSSQL_DB_BACKUP job ids, and a JSON body with no fields', async () => {
    const workloadId = t.fixtures.workloads.samples.mssqlDatabase ?? '';
    const response = await t.rest('POST', `/workloads/${workloadId}/snapshots`, { json: {} });
    expect(response.status).toBe(202);
    expect(response.body.data.id).toMatch(/^MSSQL_DB_BACKUP_/);
  });

  it('refuses unsupported workload types with no job created', async () => {
    const workloadId = t.fixtures.workloads.samples.unsupportedType ?? '';
    const before = t.sim.stats().snapshotJobs.total;
    const response = await t.rest('POST', `/workloads/${workloadId}/snapshots`);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      data: null,
      error: {
        code: 'UNSUPPORTED_WORKLOAD_TYPE',
        message: expect.stringContaining('VSPHERE_VM') as string,
      },
      metadata: null,
    });
    expect(t.sim.stats().snapshotJobs.total).toBe(before);
    expect(t.sim.stats().snapshotTriggers[workloadId]).toBeUndefined();
  });

  it('answers CLUSTER_UNAVAILABLE (503) for a workload on a Disconnected cluster', async () => {
    const workloadId = t.fixtures.workloads.samples.onDisconnectedCluster ?? '';
    const response = await t.rest('POST', `/workloads/${workloadId}/snapshots`);
    expect(response.status).toBe(503);
    expect(response.body.error.code).toBe('CLUSTER_UNAVAILABLE');
  });

  it('refuses an unknown SLA Domain, an invalid body and unknown workloads and jobs', async () => {
    const workloadId = t.fixtures.workloads.samples.vsphereVm ?? '';
    const unknownSla = await t.rest('POST', `/workloads/${workloadId}/snapshots`, {
      json: { slaDomainId: 'nope' },
    });
    expect(unknownSla.status).toBe(404);
    expect(unknownSla.body.error.message).toContain('SLA Domain');
    const badBody = await t.rest('POST', `/workloads/${workloadId}/snapshots`, {
      json: { slaDomainId: 42 },
    });
    expect(badBody.status).toBe(400);
    expect(badBody.body.error.code).toBe('INVALID_ARGUMENT');
    const notJson = await t.rest('POST', `/workloads/${workloadId}/snapshots`, {
      headers: { 'content-type': 'application/json' },
      json: undefined,
    });
    expect(notJson.status).toBe(202);
    const unknownWorkload = await t.rest('POST', '/workloads/nope/snapshots');
    expect(unknownWorkload.status).toBe(404);
    const unknownJob = await t.rest(
      'GET',
      `/workloads/${workloadId}/snapshot-jobs/${encodeURIComponent('CREATE_VSPHERE_SNAPSHOT_x:::0')}`,
    );
    expect(unknownJob.status).toBe(404);
    expect(unknownJob.body.error.code).toBe('NOT_FOUND');
  });

  it('does not show a job under another workload', async () => {
    const vm = t.fixtures.workloads.samples.vsphereVm ?? '';
    const database = t.fixtures.workloads.samples.mssqlDatabase ?? '';
    const trigger = await t.rest('POST', `/workloads/${vm}/snapshots`);
    const jobId = encodeURIComponent(trigger.body.data.id as string);
    expect((await t.rest('GET', `/workloads/${vm}/snapshot-jobs/${jobId}`)).status).toBe(200);
    expect((await t.rest('GET', `/workloads/${database}/snapshot-jobs/${jobId}`)).status).toBe(404);
    // A client that forgets to percent-encode the colons still gets the job.
    const raw = await t.rest(
      'GET',
      `/workloads/${vm}/snapshot-jobs/${trigger.body.data.id as string}`,
    );
    expect(raw.status).toBe(200);
    expect(raw.body.data.id).toBe(trigger.body.data.id);
  });

  it('denies snapshots to a read-only account (PERMISSION_DENIED) but lets it read', async () => {
    const token = await t.token('readOnly');
    const workloadId = t.fixtures.workloads.samples.vsphereVm ?? '';
    const denied = await t.rest('POST', `/workloads/${workloadId}/snapshots`, { token });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('PERMISSION_DENIED');
    expect((await t.rest('GET', `/workloads/${workloadId}`, { token })).status).toBe(200);
  });

  it('counts triggers per workload in /_sim/stats', async () => {
    const workloadId = t.fixtures.workloads.samples.mssqlDatabase ?? '';
    const before =
      ((await t.api('GET', '/_sim/stats')).body.snapshotTriggers[workloadId] as
        number | undefined) ?? 0;
    await t.rest('POST', `/workloads/${workloadId}/snapshots`);
    await t.rest('POST', `/workloads/${workloadId}/snapshots`);
    const after = (await t.api('GET', '/_sim/stats')).body.snapshotTriggers[workloadId] as number;
    expect(after).toBe(before + 2);
  });
});
