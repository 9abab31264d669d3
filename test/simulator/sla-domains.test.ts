// Conformance tests read JSON bodies of many shapes and assert each: `any` is the honest type.
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSimulator, type TestSimulator } from './simulator-fixture.js';

interface SlaDomain {
  id: string;
  name: string;
  objectTypes: string[];
  protectedWorkloadCount: number;
  clusters: { clusterId: string; clusterName: string; pauseStatus: string }[];
}

const newDomain = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: 'made by a test',
  objectTypes: ['VSPHERE_VM', 'MSSQL_DATABASE'],
  frequency: { unit: 'DAILY', interval: 1 },
  retention: { unit: 'DAYS', duration: 7 },
  ...extra,
});

describe('SLA Domains', () => {
  let t: TestSimulator;
  let connected: string;
  let disconnected: string;

  beforeAll(async () => {
    t = await startTestSimulator({ workloads: 120, seed: 21 });
    connected =
      t.fixtures.clusters.find((cluster) => cluster.connectionState === 'Connected')?.id ?? '';
    disconnected =
      t.fixtures.clusters.find((cluster) => cluster.connectionState === 'Disconnected')?.id ?? '';
  });
  afterAll(() => t.close());

  const domainNamed = async (name: string): Promise<SlaDomain> => {
    const response = await t.rest(
      'GET',
      `/sla-domains?filterField=NAME_EXACT_MATCH&filterText=${encodeURIComponent(name)}`,
    );
    const [domain] = response.body.data.nodes as SlaDomain[];
    if (domain === undefined) throw new Error(`no SLA Domain ${name}`);
    return domain;
  };

  it('lists the seeded SLA Domains in name order, with counts that match their workloads', async () => {
    const response = await t.rest('GET', '/sla-domains');
    expect(response.status).toBe(200);
    const domains = response.body.data.nodes as SlaDomain[];
    expect(domains.map((domain) => domain.name)).toEqual(
      ['Archive', 'Bronze', 'Gold', 'Silver', 'SQL Hourly'].sort(),
    );
    for (const domain of domains) {
      const protectedOnes = await t.rest('GET', `/workloads?slaDomainId=${domain.id}&first=1`);
      expect(protectedOnes.body.data.count).toBe(domain.protectedWorkloadCount);
      expect(domain.clusters).toHaveLength(t.fixtures.clusters.length);
    }
  });

  it('filters with filterField and filterText', async () => {
    const byName = await t.rest('GET', '/sla-domains?filterField=NAME&filterText=ol');
    expect((byName.body.data.nodes as SlaDomain[]).map((domain) => domain.name)).toEqual(['Gold']);
    const exact = await t.rest('GET', '/sla-domains?filterField=NAME_EXACT_MATCH&filterText=gold');
    expect(exact.body.data.count).toBe(0);
    const sqlOnly = await t.rest(
      'GET',
      '/sla-domains?filterField=OBJECT_TYPE&filterText=MSSQL_DATABASE',
    );
    expect(sqlOnly.body.data.count).toBe(4);
    const byCluster = await t.rest(
      'GET',
      `/sla-domains?filterField=CLUSTER_UUID&filterText=${connected}`,
    );
    expect(byCluster.body.data.count).toBe(5);
    for (const query of [
      'filterField=COLOUR&filterText=x',
      'filterField=NAME',
      'filterText=Gold',
      'filterField=OBJECT_TYPE&filterText=FLOPPY',
      'filterField=SHOW_PAUSED_SLAS_ONLY&filterText=maybe',
    ]) {
      const response = await t.rest('GET', `/sla-domains?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.error.code).toBe('INVALID_ARGUMENT');
    }
  });

  it('creates, gets, updates and deletes an SLA Domain', async () => {
    const created = await t.rest('POST', '/sla-domains', {
      json: newDomain('Test Weekly', { clusterIds: [connected] }),
    });
    expect(created.status).toBe(201);
    const domain = created.body.data;
    expect(domain).toMatchObject({
      name: 'Test Weekly',
      description: 'made by a test',
      objectTypes: ['VSPHERE_VM', 'MSSQL_DATABASE'],
      frequency: { unit: 'DAILY', interval: 1 },
      retention: { unit: 'DAYS', duration: 7 },
      protectedWorkloadCount: 0,
      clusters: [{ clusterId: connected, pauseStatus: 'NOT_PAUSED' }],
    });
    const got = await t.rest('GET', `/sla-domains/${domain.id}`);
    expect(got.body.data).toEqual(domain);

    const updated = await t.rest('PATCH', `/sla-domains/${domain.id}`, {
      json: { name: 'Test Weekly 2', retention: { unit: 'WEEKS', duration: 2 } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({
      name: 'Test Weekly 2',
      retention: { unit: 'WEEKS', duration: 2 },
      description: 'made by a test',
    });

    const changeClusters = await t.rest('PATCH', `/sla-domains/${domain.id}`, {
      json: { clusterIds: [connected] },
    });
    expect(changeClusters.status).toBe(400);

    const deleted = await t.rest('DELETE', `/sla-domains/${domain.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({
      data: { id: domain.id, deleted: true },
      error: null,
      metadata: null,
    });
    expect((await t.rest('GET', `/sla-domains/${domain.id}`)).status).toBe(404);
    expect((await t.rest('DELETE', `/sla-domains/${domain.id}`)).status).toBe(404);
  });

  it('refuses a taken name (ALREADY_EXISTS), invalid bodies and unknown clusters', async () => {
    const taken = await t.rest('POST', '/sla-domains', { json: newDomain('gold') });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('ALREADY_EXISTS');
    for (const body of [
      newDomain(''),
      newDomain('X', { objectTypes: [] }),
      newDomain('X', { objectTypes: ['FLOPPY'] }),
      newDomain('X', { frequency: { unit: 'SECONDLY', interval: 1 } }),
      newDomain('X', { retention: { unit: 'DAYS', duration: 0 } }),
      { name: 'X' },
    ]) {
      const response = await t.rest('POST', '/sla-domains', { json: body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.code).toBe('INVALID_ARGUMENT');
    }
    const unknownCluster = await t.rest('POST', '/sla-domains', {
      json: newDomain('X', { clusterIds: ['nope'] }),
    });
    expect(unknownCluster.status).toBe(404);
    const rename = await t.rest('PATCH', `/sla-domains/${(await domainNamed('Silver')).id}`, {
      json: { name: 'Gold' },
    });
    expect(rename.status).toBe(409);
  });

  it('assigns and removes protection, keeping counts, and refuses wrong types and unknown workloads', async () => {
    const created = (await t.rest('POST', '/sla-domains', { json: newDomain('Assign Test') })).body
      .data as SlaDomain;
    const vm = t.fixtures.workloads.samples.vsphereVm ?? '';
    const before = (await t.rest('GET', `/workloads/${vm}`)).body.data;
    const assigned = await t.rest('POST', `/sla-domains/${created.id}/assign`, {
      json: { workloadIds: [vm] },
    });
    expect(assigned.status).toBe(200);
    expect(assigned.body.data.protectedWorkloadCount).toBe(1);
    const workload = (await t.rest('GET', `/workloads/${vm}`)).body.data;
    expect(workload).toMatchObject({ slaDomainId: created.id, slaDomainName: 'Assign Test' });
    if (before.slaDomainName !== null) {
      const previous = await domainNamed(before.slaDomainName as string);
      const count = await t.rest('GET', `/workloads?slaDomainId=${previous.id}&first=1`);
      expect(previous.protectedWorkloadCount).toBe(count.body.data.count);
    }

    const nonEmpty = await t.rest('DELETE', `/sla-domains/${created.id}`);
    expect(nonEmpty.status).toBe(409);
    expect(nonEmpty.body.error.code).toBe('FAILED_PRECONDITION');

    const unsupported = t.fixtures.workloads.samples.unsupportedType ?? '';
    const wrongType = await t.rest('POST', `/sla-domains/${created.id}/assign`, {
      json: { workloadIds: [unsupported] },
    });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error.code).toBe('INVALID_ARGUMENT');
    const unknown = await t.rest('POST', `/sla-domains/${created.id}/assign`, {
      json: { workloadIds: ['nope'] },
    });
    expect(unknown.status).toBe(404);
    const empty = await t.rest('POST', `/sla-domains/${created.id}/assign`, {
      json: { workloadIds: [] },
    });
    expect(empty.status).toBe(400);
    const noBody = await t.rest('POST', `/sla-domains/${created.id}/assign`);
    expect(noBody.status).toBe(400);

    const removed = await t.rest('POST', `/sla-domains/${created.id}/unassign`, {
      json: { workloadIds: [vm] },
    });
    expect(removed.status).toBe(200);
    expect(removed.body.data.protectedWorkloadCount).toBe(0);
    expect((await t.rest('GET', `/workloads/${vm}`)).body.data).toMatchObject({
      slaDomainId: null,
      slaDomainName: null,
    });
    expect((await t.rest('DELETE', `/sla-domains/${created.id}`)).status).toBe(200);
  });

  it('pauses and resumes per cluster, idempotently, and reads the state back', async () => {
    const gold = await domainNamed('Gold');
    const paused = await t.rest('POST', `/sla-domains/${gold.id}/pause`, {
      json: { clusterIds: [connected] },
    });
    expect(paused.status).toBe(200);
    const statusOf = (domain: SlaDomain, clusterId: string) =>
      domain.clusters.find((cluster) => cluster.clusterId === clusterId)?.pauseStatus;
    expect(statusOf(paused.body.data, connected)).toBe('PAUSED');
    const others = (paused.body.data as SlaDomain).clusters.filter(
      (cluster) => cluster.clusterId !== connected && cluster.clusterId !== disconnected,
    );
    expect(others.every((cluster) => cluster.pauseStatus === 'NOT_PAUSED')).toBe(true);
    // A Disconnected cluster's state is UNKNOWN.
    expect(statusOf(paused.body.data, disconnected)).toBe('UNKNOWN');

    const again = await t.rest('POST', `/sla-domains/${gold.id}/pause`, {
      json: { clusterIds: [connected] },
    });
    expect(again.body.data).toEqual(paused.body.data);
    expect(statusOf((await t.rest('GET', `/sla-domains/${gold.id}`)).body.data, connected)).toBe(
      'PAUSED',
    );

    const pausedOnly = await t.rest(
      'GET',
      '/sla-domains?filterField=SHOW_PAUSED_SLAS_ONLY&filterText=true',
    );
    expect((pausedOnly.body.data.nodes as SlaDomain[]).map((domain) => domain.name)).toEqual([
      'Gold',
    ]);

    const resumed = await t.rest('POST', `/sla-domains/${gold.id}/resume`, {
      json: { clusterIds: [connected] },
    });
    expect(statusOf(resumed.body.data, connected)).toBe('NOT_PAUSED');

    // Without clusterIds: all of its clusters.
    const all = await t.rest('POST', `/sla-domains/${gold.id}/pause`);
    expect(
      (all.body.data as SlaDomain).clusters.every(
        (cluster) => cluster.pauseStatus !== 'NOT_PAUSED',
      ),
    ).toBe(true);
    const allResumed = await t.rest('POST', `/sla-domains/${gold.id}/resume`, { json: {} });
    expect(statusOf(allResumed.body.data, connected)).toBe('NOT_PAUSED');

    const foreign = await t.rest('POST', `/sla-domains/${gold.id}/pause`, {
      json: { clusterIds: ['not-a-cluster'] },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.code).toBe('INVALID_ARGUMENT');
    expect((await t.rest('POST', '/sla-domains/nope/pause')).status).toBe(404);
  });

  it('keeps the stored pause state of a Disconnected cluster and shows it on reconnection', async () => {
    const silver = await domainNamed('Silver');
    await t.rest('POST', `/sla-domains/${silver.id}/pause`, {
      json: { clusterIds: [disconnected] },
    });
    const whileDown = await t.rest('GET', `/sla-domains/${silver.id}`);
    expect(
      whileDown.body.data.clusters.find((c: { clusterId: string }) => c.clusterId === disconnected)
        .pauseStatus,
    ).toBe('UNKNOWN');
    await t.api('PUT', `/_sim/clusters/${disconnected}/connection-state`, {
      json: { connectionState: 'Connected' },
    });
    const afterReconnect = await t.rest('GET', `/sla-domains/${silver.id}`);
    expect(
      afterReconnect.body.data.clusters.find(
        (c: { clusterId: string }) => c.clusterId === disconnected,
      ).pauseStatus,
    ).toBe('PAUSED');
    await t.api('PUT', `/_sim/clusters/${disconnected}/connection-state`, {
      json: { connectionState: 'Disconnected' },
    });
    await t.rest('POST', `/sla-domains/${silver.id}/resume`, {
      json: { clusterIds: [disconnected] },
    });
  });

  it('records every change as a CONFIGURATION event with the SLA Domain as object', async () => {
    const created = (await t.rest('POST', '/sla-domains', { json: newDomain('Event Test') })).body
      .data as SlaDomain;
    await t.rest('POST', `/sla-domains/${created.id}/pause`);
    await t.rest('POST', `/sla-domains/${created.id}/resume`);
    await t.rest('DELETE', `/sla-domains/${created.id}`);
    const events = await t.rest('GET', `/events?objectId=${created.id}`);
    const nodes = events.body.data.nodes as {
      type: string;
      objectType: string;
      objectName: string;
      message: string;
    }[];
    expect(nodes).toHaveLength(4);
    expect(
      nodes.every((event) => event.type === 'CONFIGURATION' && event.objectType === 'SLA_DOMAIN'),
    ).toBe(true);
    expect(nodes.map((event) => event.message)).toEqual([
      expect.stringContaining('deleted'),
      expect.stringContaining('resumed'),
      expect.stringContaining('paused'),
      expect.stringContaining('created'),
    ]);
  });

  it('denies changes to a read-only account', async () => {
    const token = await t.token('readOnly');
    const gold = await domainNamed('Gold');
    for (const [method, path, json] of [
      ['POST', '/sla-domains', newDomain('Denied')],
      ['PATCH', `/sla-domains/${gold.id}`, { description: 'x' }],
      ['DELETE', `/sla-domains/${gold.id}`, undefined],
      ['POST', `/sla-domains/${gold.id}/pause`, {}],
      ['POST', `/sla-domains/${gold.id}/resume`, {}],
      ['POST', `/sla-domains/${gold.id}/assign`, { workloadIds: ['x'] }],
      ['POST', `/sla-domains/${gold.id}/unassign`, { workloadIds: ['x'] }],
    ] as const) {
      const response = await t.rest(method, path, {
        token,
        ...(json === undefined ? {} : { json }),
      });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body.error.code).toBe('PERMISSION_DENIED');
    }
  });
});
