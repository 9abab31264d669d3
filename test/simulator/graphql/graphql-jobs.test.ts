// Conformance tests read JSON bodies of many shapes and assert each: `any` is the honest type.
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSimulator, type TestSimulator } from '../simulator-fixture.js';
import { eventually } from '../../testkit/eventually.js';

/**
 * The GraphQL operations of paw's jobs (docs/platform-model.md), served from the same state as
 * the REST routes: a snapshot taken through one is seen through the other and counted once.
 */
describe('GraphQL: the operations of paw jobs', () => {
  let t: TestSimulator;
  let admin: string;
  let readOnly: string;

  beforeAll(async () => {
    t = await startTestSimulator({
      seed: 4,
      timeScale: 3000,
      jobs: { failureRate: 0, cancelRate: 0 },
    });
    admin = await t.token('admin');
    readOnly = await t.token('readOnly');
  });
  afterAll(() => t.close());

  const postGraphql = async (
    query: string,
    variables: Record<string, unknown> = {},
    token = admin,
  ) => {
    const response = await t.api('POST', '/api/graphql', { token, json: { query, variables } });
    expect(response.status).toBe(200);
    return response.body as {
      data: any;
      errors?: { message: string; extensions: { code: number } }[];
    };
  };

  const vm = () => t.fixtures.workloads.samples.vsphereVm ?? '';
  const db = () => t.fixtures.workloads.samples.mssqlDatabase ?? '';
  const clusterOf = async (fid: string): Promise<string> =>
    (await t.rest('GET', `/workloads/${fid}`)).body.data.clusterId;
  const gold = () => t.fixtures.slaDomains.find((sla) => sla.name === 'Gold')?.id ?? '';

  const SNAPPABLES = /* GraphQL */ `
    query ($first: Int, $after: String, $filter: SnappableFilterInput) {
      snappableConnection(first: $first, after: $after, filter: $filter) {
        count
        nodes {
          id
          fid
          name
          objectType
          cluster {
            id
            name
          }
          slaDomain {
            id
            name
          }
        }
        edges {
          cursor
          node {
            fid
          }
        }
        pageInfo {
          endCursor
          hasNextPage
        }
      }
    }
  `;

  it('lists snappables with the schema words, filters them, and pages with cursors', async () => {
    const all = await postGraphql(SNAPPABLES, { first: 1000 });
    expect(all.data.snappableConnection.count).toBe(t.fixtures.workloads.count);
    const node = all.data.snappableConnection.nodes.find((entry: any) => entry.fid === vm());
    expect(node).toMatchObject({
      id: `VirtualMachine:::${vm()}`,
      objectType: 'VmwareVirtualMachine',
      cluster: { id: await clusterOf(vm()) },
    });
    const dbs = await postGraphql(SNAPPABLES, { first: 1000, filter: { objectType: ['Mssql'] } });
    expect(dbs.data.snappableConnection.count).toBe(t.fixtures.workloads.byType.MSSQL_DATABASE);
    const byFid = await postGraphql(SNAPPABLES, { filter: { objectFid: [db()] } });
    expect(byFid.data.snappableConnection.nodes.map((entry: any) => entry.fid)).toEqual([db()]);

    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const page: any = (await postGraphql(SNAPPABLES, { first: 7, after })).data
        .snappableConnection;
      seen.push(...page.nodes.map((entry: any) => entry.fid));
      expect(page.edges.at(-1)?.cursor ?? null).toBe(page.pageInfo.endCursor);
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(new Set(seen).size).toBe(t.fixtures.workloads.count);
    const bad = await postGraphql(SNAPPABLES, { after: 'not-a-cursor' });
    expect(bad.errors?.[0]?.extensions.code).toBe(400);
  });

  const ASYNC = 'id status progress startTime endTime nodeId error { message } links { href rel }';
  const VM_SNAPSHOT = /* GraphQL */ `
    mutation($input: VsphereOnDemandSnapshotInput!) { vsphereOnDemandSnapshot(input: $input) { ${ASYNC} } }`;
  const DB_SNAPSHOT = /* GraphQL */ `
    mutation($input: CreateOnDemandMssqlBackupInput!) { createOnDemandMssqlBackup(input: $input) { ${ASYNC} } }`;
  const VM_STATUS = /* GraphQL */ `
    query($clusterUuid: UUID!, $id: String!) { vSphereVMAsyncRequestStatus(clusterUuid: $clusterUuid, id: $id) { ${ASYNC} } }`;
  const DB_STATUS = /* GraphQL */ `
    query($input: GetMssqlAsyncRequestStatusInput!) { mssqlJobStatus(input: $input) { ${ASYNC} } }`;

  it('takes a VM snapshot with its retention, follows it by cluster UUID, and REST sees the same job', async () => {
    const before = t.sim.stats().snapshotTriggers[vm()] ?? 0;
    const taken = await postGraphql(VM_SNAPSHOT, {
      input: { id: vm(), config: { slaId: gold() } },
    });
    const request = taken.data.vsphereOnDemandSnapshot;
    expect(request.id).toMatch(/^CREATE_VSPHERE_SNAPSHOT_/);
    expect(request.status).toBe('QUEUED');
    const cluster = await clusterOf(vm());
    // The links point at the cluster node, never at the platform.
    const clusterBase = t.fixtures.clusters.find((entry) => entry.id === cluster)?.baseUrl ?? '';
    expect(request.links[0].href.startsWith(`${clusterBase}/api/v1/`)).toBe(true);
    expect(t.sim.stats().snapshotTriggers[vm()]).toBe(before + 1);

    const done = await eventually('the job to end', async () => {
      const status = (await postGraphql(VM_STATUS, { clusterUuid: cluster, id: request.id })).data
        .vSphereVMAsyncRequestStatus;
      return status.status === 'SUCCEEDED' ? status : undefined;
    });
    expect(done.progress).toBe(100);
    const rest = await t.rest(
      'GET',
      `/workloads/${vm()}/snapshot-jobs/${encodeURIComponent(request.id)}`,
    );
    expect(rest.body.data).toMatchObject({ id: request.id, status: 'SUCCEEDED' });
    const snapshots = await t.rest('GET', `/workloads/${vm()}/snapshots`);
    expect(snapshots.body.data.nodes[0]).toMatchObject({ jobId: request.id, slaDomainId: gold() });

    const wrongCluster = await postGraphql(VM_STATUS, {
      clusterUuid: t.fixtures.clusters.find((entry) => entry.id !== cluster)?.id,
      id: request.id,
    });
    expect(wrongCluster.errors?.[0]?.extensions.code).toBe(404);
  });

  it('takes a database backup, refuses the wrong mutation for a type, and a REST trigger shows in GraphQL', async () => {
    const backup = await postGraphql(DB_SNAPSHOT, {
      input: { id: db(), config: { baseOnDemandSnapshotConfig: { slaId: gold() } } },
    });
    expect(backup.data.createOnDemandMssqlBackup.id).toMatch(/^MSSQL_DB_BACKUP_/);
    const status = await postGraphql(DB_STATUS, {
      input: { clusterUuid: await clusterOf(db()), id: backup.data.createOnDemandMssqlBackup.id },
    });
    expect(status.data.mssqlJobStatus.id).toBe(backup.data.createOnDemandMssqlBackup.id);

    const wrong = await postGraphql(VM_SNAPSHOT, { input: { id: db() } });
    expect(wrong.errors?.[0]).toMatchObject({ extensions: { code: 400 } });
    expect(wrong.errors?.[0]?.message).toMatch(/is a Mssql, not a VmwareVirtualMachine/);

    const viaRest = await t.rest('POST', `/workloads/${vm()}/snapshots`, { json: {} });
    const id = viaRest.body.data.id as string;
    const seen = await postGraphql(VM_STATUS, { clusterUuid: await clusterOf(vm()), id });
    expect(seen.data.vSphereVMAsyncRequestStatus.id).toBe(id);
  });

  it('refuses a disconnected cluster, an unknown FID and a caller without the permission', async () => {
    const disconnected = t.fixtures.workloads.samples.onDisconnectedCluster ?? '';
    const refused = await postGraphql(VM_SNAPSHOT, { input: { id: disconnected } });
    expect(refused.errors?.[0]).toMatchObject({ extensions: { code: 500 } });
    expect(refused.errors?.[0]?.message).toMatch(/Disconnected/);
    const unknown = await postGraphql(VM_SNAPSHOT, {
      input: { id: '00000000-0000-4000-8000-000000000000' },
    });
    expect(unknown.errors?.[0]?.extensions.code).toBe(404);
    const denied = await postGraphql(VM_SNAPSHOT, { input: { id: vm() } }, readOnly);
    expect(denied.errors?.[0]?.extensions.code).toBe(403);
    expect(denied.errors?.[0]?.message).toMatch(/TAKE_SNAPSHOT/);
  });

  const SLA_STATUSES = /* GraphQL */ `
    query ($id: UUID!) {
      globalSlaStatuses(SlaId: $id) {
        nodes {
          cluster {
            id
            name
          }
          pauseStatus
        }
      }
    }
  `;
  const PAUSE = /* GraphQL */ `
    mutation ($input: PauseSlaInput!) {
      pauseSla(input: $input) {
        success
      }
    }
  `;

  it('lists and gets SLA Domains, pauses and resumes one on named clusters, and reads the state back', async () => {
    const list = await postGraphql(
      /* GraphQL */ `
        query ($filter: [GlobalSlaFilterInput!]) {
          slaDomains(first: 100, filter: $filter) {
            count
            nodes {
              id
              name
              ... on GlobalSlaReply {
                objectTypes
              }
            }
          }
        }
      `,
      { filter: [{ field: 'NAME_EXACT_MATCH', text: 'Gold' }] },
    );
    expect(list.data.slaDomains.nodes).toEqual([
      { id: gold(), name: 'Gold', objectTypes: expect.arrayContaining(['VSPHERE_OBJECT_TYPE']) },
    ]);
    const byType = await postGraphql(
      /* GraphQL */ `
        query ($filter: [GlobalSlaFilterInput!]) {
          slaDomains(filter: $filter) {
            nodes {
              name
            }
          }
        }
      `,
      {
        filter: [{ field: 'OBJECT_TYPE', objectTypeList: ['MSSQL_OBJECT_TYPE'] }],
      },
    );
    expect(byType.data.slaDomains.nodes.map((node: any) => node.name)).toContain('SQL Hourly');
    const one = await postGraphql(
      /* GraphQL */ `
        query ($id: UUID!) {
          slaDomain(id: $id) {
            id
            name
            ... on GlobalSlaReply {
              protectedObjectCount
            }
          }
        }
      `,
      { id: gold() },
    );
    expect(one.data.slaDomain).toMatchObject({ id: gold(), name: 'Gold' });

    const connected = t.fixtures.clusters.find(
      (cluster) => cluster.connectionState === 'Connected',
    );
    const clusterId = connected?.id ?? '';
    const pause = await postGraphql(PAUSE, {
      input: { slaId: gold(), clusterUuids: [clusterId], pauseSla: true },
    });
    expect(pause.data.pauseSla.success).toBe(true);
    const statuses = (await postGraphql(SLA_STATUSES, { id: gold() })).data.globalSlaStatuses.nodes;
    expect(statuses.find((entry: any) => entry.cluster.id === clusterId).pauseStatus).toBe(
      'PAUSED',
    );
    const rest = await t.rest('GET', `/sla-domains/${gold()}`);
    expect(
      rest.body.data.clusters.find((entry: any) => entry.clusterId === clusterId).pauseStatus,
    ).toBe('PAUSED');
    await postGraphql(PAUSE, {
      input: { slaId: gold(), clusterUuids: [clusterId], pauseSla: false },
    });
    const after = (await postGraphql(SLA_STATUSES, { id: gold() })).data.globalSlaStatuses.nodes;
    expect(after.find((entry: any) => entry.cluster.id === clusterId).pauseStatus).toBe(
      'NOT_PAUSED',
    );

    const nameless = await postGraphql(PAUSE, {
      input: { slaId: gold(), clusterUuids: [], pauseSla: true },
    });
    expect(nameless.errors?.[0]?.extensions.code).toBe(400);
    const denied = await postGraphql(
      PAUSE,
      { input: { slaId: gold(), clusterUuids: [clusterId], pauseSla: true } },
      readOnly,
    );
    expect(denied.errors?.[0]?.extensions.code).toBe(403);
  });

  it('lists clusters with their status, and activity series without job ids, in the schema words', async () => {
    const clusters = await postGraphql(
      /* GraphQL */ `
        query ($filter: ClusterFilterInput) {
          clusterConnection(filter: $filter) {
            count
            nodes {
              id
              name
              type
              version
              status
            }
          }
        }
      `,
      { filter: { connectionState: ['Disconnected'] } },
    );
    expect(clusters.data.clusterConnection.nodes).toEqual([
      expect.objectContaining({ name: 'branch-robo-cl03', type: 'Robo', status: 'Disconnected' }),
    ]);

    const since = new Date(Date.now() - 1000).toISOString();
    const taken = await postGraphql(VM_SNAPSHOT, { input: { id: vm() } });
    const ACTIVITY = /* GraphQL */ `
      query ($filters: ActivitySeriesFilter) {
        activitySeriesConnection(first: 50, filters: $filters) {
          nodes {
            id
            activitySeriesId
            objectId
            fid
            objectType
            isOnDemand
            lastActivityType
            lastActivityStatus
            startTime
            lastUpdated
            clusterUuid
          }
        }
      }
    `;
    const series = await eventually('the activity to end', async () => {
      const nodes = (
        await postGraphql(ACTIVITY, {
          filters: { objectFid: [vm()], startTimeGt: since, lastActivityType: ['BACKUP'] },
        })
      ).data.activitySeriesConnection.nodes;
      return nodes.find((node: any) => node.lastActivityStatus === 'Success');
    });
    expect(series).toMatchObject({
      fid: vm(),
      objectType: 'VmwareVm',
      isOnDemand: true,
      lastActivityType: 'Backup',
      clusterUuid: await clusterOf(vm()),
    });
    expect(JSON.stringify(series)).not.toContain(taken.data.vsphereOnDemandSnapshot.id);
    const filtered = await postGraphql(ACTIVITY, {
      filters: { objectFid: [vm()], objectType: ['VMWARE_VM'], lastActivityStatus: ['SUCCESS'] },
    });
    expect(filtered.data.activitySeriesConnection.nodes.length).toBeGreaterThan(0);
  });
});
