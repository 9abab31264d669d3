// Conformance tests read JSON bodies of many shapes and assert each: `any` is the honest type.
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../testkit/eventually.js';
import { call } from '../http.js';
import { startTestSimulator, type TestSimulator } from '../simulator-fixture.js';

/**
 * The arguments of the served fields, sent as any client of the real platform sends them
 * (variables of the published types): sorting, every filter, backward pagination, and who
 * paused an SLA Domain. What the simulator cannot honour is a field error naming the argument.
 */
describe('GraphQL: the arguments a client of the platform sends', () => {
  let t: TestSimulator;

  beforeAll(async () => {
    t = await startTestSimulator({
      seed: 11,
      workloads: 60,
      timeScale: 3000,
      jobs: { failureRate: 0, cancelRate: 0 },
      // The SLA Domain assertions here name the seeded global ones; cluster-local ones beside
      // them are graphql-user-roots.test.ts's.
      clusterSlaDomains: false,
    });
  });
  afterAll(() => t.close());

  const postGraphql = async (
    query: string,
    variables: Record<string, unknown> = {},
    account: 'admin' | 'readOnly' = 'admin',
  ) => {
    const response = await t.api('POST', '/api/graphql', {
      token: await t.token(account),
      json: { query, variables },
    });
    expect(response.status, response.text).toBe(200);
    return response.body as {
      data: any;
      errors?: { message: string; path: string[]; extensions: { code: number } }[];
    };
  };
  /** The data of a query that must succeed. */
  const dataOf = async (query: string, variables: Record<string, unknown> = {}) => {
    const body = await postGraphql(query, variables);
    expect(body.errors).toBeUndefined();
    return body.data;
  };
  /** The one field error of a query that must fail. */
  const errorOf = async (query: string, variables: Record<string, unknown> = {}) => {
    const body = await postGraphql(query, variables);
    expect(body.errors).toHaveLength(1);
    return body.errors?.[0];
  };

  const connected = () =>
    t.fixtures.clusters.filter((cluster) => cluster.connectionState === 'Connected');
  const slaId = (name: string) => t.fixtures.slaDomains.find((sla) => sla.name === name)?.id ?? '';
  const vm = () => t.fixtures.workloads.samples.vsphereVm ?? '';
  const db = () => t.fixtures.workloads.samples.mssqlDatabase ?? '';

  const SNAPPABLES = /* GraphQL */ `
    query Snappables(
      $first: Int
      $after: String
      $last: Int
      $before: String
      $sortBy: SnappableSortByEnum
      $sortOrder: SortOrder
      $filter: SnappableFilterInput
    ) {
      snappableConnection(
        first: $first
        after: $after
        last: $last
        before: $before
        sortBy: $sortBy
        sortOrder: $sortOrder
        filter: $filter
      ) {
        count
        nodes {
          fid
          name
          objectType
          protectionStatus
          complianceStatus
          cluster {
            id
            type
          }
          slaDomain {
            id
            name
          }
        }
        pageInfo {
          startCursor
          endCursor
          hasNextPage
          hasPreviousPage
        }
      }
    }
  `;

  it('sorts snappables by name both ways and pages backward with last and before', async () => {
    const ascending = (await dataOf(SNAPPABLES, { first: 1000 })).snappableConnection.nodes;
    const names = ascending.map((node: any) => node.name);
    expect(names).toEqual([...names].sort());
    const descending = (
      await dataOf(SNAPPABLES, { first: 1000, sortBy: 'Name', sortOrder: 'DESC' })
    ).snappableConnection.nodes.map((node: any) => node.name);
    expect(descending).toEqual([...names].reverse());

    // Backward from the end: last 7, then the 7 before the page's startCursor, ...
    const seen: string[] = [];
    let before: string | undefined;
    for (;;) {
      const page = (
        await dataOf(SNAPPABLES, { last: 7, ...(before === undefined ? {} : { before }) })
      ).snappableConnection;
      seen.unshift(...page.nodes.map((node: any) => node.name));
      expect(page.pageInfo.hasNextPage).toBe(before !== undefined);
      if (!page.pageInfo.hasPreviousPage) break;
      before = page.pageInfo.startCursor;
    }
    expect(seen).toEqual(names);

    // A cursor of one order means nothing in another.
    const page = (await dataOf(SNAPPABLES, { first: 2 })).snappableConnection;
    const other = await errorOf(SNAPPABLES, {
      sortOrder: 'DESC',
      after: page.pageInfo.endCursor,
    });
    expect(other?.extensions.code).toBe(400);
    expect(other?.message).toMatch(/^after: /);
  });

  it('filters snappables by cluster, excluded types, protection and compliance', async () => {
    const all = (await dataOf(SNAPPABLES, { first: 1000 })).snappableConnection.nodes;
    const cluster = connected()[0];
    const onCluster = (
      await dataOf(SNAPPABLES, {
        first: 1000,
        filter: { cluster: { id: [cluster?.id], type: ['OnPrem'] } },
      })
    ).snappableConnection;
    expect(onCluster.count).toBe(all.filter((node: any) => node.cluster.id === cluster?.id).length);
    expect(onCluster.count).toBeGreaterThan(0);

    const noVms = (
      await dataOf(SNAPPABLES, {
        first: 1000,
        filter: { excludedObjectTypes: ['VmwareVirtualMachine', 'Mssql'] },
      })
    ).snappableConnection.nodes;
    expect(noVms.length).toBe(
      all.filter((node: any) => !['VmwareVirtualMachine', 'Mssql'].includes(node.objectType))
        .length,
    );

    const unprotected = (
      await dataOf(SNAPPABLES, { first: 1000, filter: { protectionStatus: ['NoSla'] } })
    ).snappableConnection.nodes;
    expect(unprotected.length).toBeGreaterThan(0);
    expect(unprotected.every((node: any) => node.slaDomain === null)).toBe(true);
    expect(unprotected.every((node: any) => node.complianceStatus === 'UNPROTECTED')).toBe(true);
    const compliant = (
      await dataOf(SNAPPABLES, { first: 1000, filter: { complianceStatus: ['IN_COMPLIANCE'] } })
    ).snappableConnection.nodes;
    expect(compliant.length).toBe(all.length - unprotected.length);

    const bySla = (
      await dataOf(SNAPPABLES, {
        first: 1000,
        sortBy: 'SlaDomainName',
        filter: { slaDomain: { id: [slaId('Gold'), slaId('Silver')] }, searchTerm: '-' },
      })
    ).snappableConnection.nodes.map((node: any) => node.slaDomain.name);
    expect(new Set(bySla)).toEqual(new Set(['Gold', 'Silver']));
    expect(bySla).toEqual([...bySla].sort());
  });

  it('answers an argument it cannot honour with a field error that names it', async () => {
    const org = await errorOf(SNAPPABLES, {
      filter: { orgId: ['00000000-0000-4000-8000-000000000000'] },
    });
    expect(org).toMatchObject({ path: ['snappableConnection'], extensions: { code: 400 } });
    expect(org?.message).toMatch(/^filter\.orgId: /);
    const bytes = await errorOf(SNAPPABLES, { sortBy: 'PhysicalBytes' });
    expect(bytes?.message).toMatch(/^sortBy: .*PhysicalBytes.*Name/);
    const negative = await errorOf(SNAPPABLES, { first: -1 });
    expect(negative?.message).toMatch(/^first: /);
  });

  it('answers an empty page with empty cursors: PageInfo cursors are String!', async () => {
    const empty = (
      await dataOf(SNAPPABLES, { filter: { searchTerm: 'no workload is named like this' } })
    ).snappableConnection;
    expect(empty).toEqual({
      count: 0,
      nodes: [],
      pageInfo: { startCursor: '', endCursor: '', hasNextPage: false, hasPreviousPage: false },
    });
  });

  const SNAPSHOTS = /* GraphQL */ `
    query Snapshots(
      $workloadId: String!
      $sortBy: SnapshotQuerySortByField
      $sortOrder: SortOrder
      $timeRange: TimeRangeInput
      $snapshotFilter: [SnapshotQueryFilterInput!]
    ) {
      snapshotOfASnappableConnection(
        workloadId: $workloadId
        sortBy: $sortBy
        sortOrder: $sortOrder
        timeRange: $timeRange
        snapshotFilter: $snapshotFilter
      ) {
        count
        nodes {
          __typename
          id
          snappableId
          date
          isOnDemandSnapshot
          ... on CdmSnapshot {
            slaDomain {
              name
            }
          }
        }
      }
    }
  `;
  const VM_SNAPSHOT = /* GraphQL */ `
    mutation Snapshot($input: VsphereOnDemandSnapshotInput!) {
      vsphereOnDemandSnapshot(input: $input) {
        id
        status
      }
    }
  `;

  it('sorts and filters snapshots, which are CdmSnapshots of their snappable; keeps the userNote with the job', async () => {
    const taken = (
      await dataOf(VM_SNAPSHOT, {
        input: { id: vm(), config: { slaId: slaId('Bronze') }, userNote: 'paw: nightly run 42' },
      })
    ).vsphereOnDemandSnapshot;
    const jobs = await call('GET', `${t.sim.baseUrl}/_sim/jobs`);
    expect(jobs.body.jobs.find((job: any) => job.id === taken.id)).toMatchObject({
      workloadId: vm(),
      userNote: 'paw: nightly run 42',
    });
    const newest = await eventually('the snapshot', async () => {
      const nodes = (await dataOf(SNAPSHOTS, { workloadId: vm() })).snapshotOfASnappableConnection
        .nodes;
      return nodes[0]?.isOnDemandSnapshot === true ? nodes : undefined;
    });
    expect(newest[0]).toMatchObject({
      __typename: 'CdmSnapshot',
      snappableId: vm(),
      slaDomain: { name: 'Bronze' },
    });
    const dates = newest.map((node: any) => node.date);
    expect(dates).toEqual([...dates].sort().reverse());
    const oldestFirst = (
      await dataOf(SNAPSHOTS, { workloadId: vm(), sortBy: 'CREATION_TIME', sortOrder: 'ASC' })
    ).snapshotOfASnappableConnection.nodes.map((node: any) => node.date);
    expect(oldestFirst).toEqual([...dates].reverse());

    const onDemand = (
      await dataOf(SNAPSHOTS, {
        workloadId: vm(),
        snapshotFilter: [{ field: 'IS_ON_DEMAND', text: 'true' }],
      })
    ).snapshotOfASnappableConnection.nodes;
    expect(onDemand.map((node: any) => node.id)).toEqual([newest[0].id]);
    const scheduled = (
      await dataOf(SNAPSHOTS, {
        workloadId: vm(),
        snapshotFilter: [{ field: 'SNAPSHOT_TYPE', typeFilters: ['SCHEDULED'] }],
      })
    ).snapshotOfASnappableConnection;
    expect(scheduled.count).toBe(newest.length - 1);
    const lately = (
      await dataOf(SNAPSHOTS, {
        workloadId: vm(),
        timeRange: { start: newest[0].date, end: new Date(Date.now() + 60_000).toISOString() },
      })
    ).snapshotOfASnappableConnection.nodes;
    expect(lately.map((node: any) => node.id)).toEqual([newest[0].id]);

    const indexed = await errorOf(SNAPSHOTS, {
      workloadId: vm(),
      snapshotFilter: [{ field: 'IS_INDEXED', text: 'true' }],
    });
    expect(indexed?.message).toMatch(/^snapshotFilter\[0\]\.field: /);
    const badTime = await errorOf(SNAPSHOTS, {
      workloadId: vm(),
      timeRange: { start: 'yesterday', end: 'today' },
    });
    expect(badTime?.message).toMatch(/^timeRange\.start: /);
  });

  it('keeps a database backup’s userNote and forceFullSnapshot, and answers its status through GetMssqlAsyncRequestStatusInput', async () => {
    const backup = (
      await dataOf(
        /* GraphQL */ `
          mutation Backup($input: CreateOnDemandMssqlBackupInput!) {
            createOnDemandMssqlBackup(input: $input) {
              id
            }
          }
        `,
        {
          input: {
            id: db(),
            config: { forceFullSnapshot: true },
            userNote: 'before the schema change',
          },
        },
      )
    ).createOnDemandMssqlBackup;
    const jobs = await call('GET', `${t.sim.baseUrl}/_sim/jobs`);
    expect(jobs.body.jobs.find((job: any) => job.id === backup.id)).toMatchObject({
      userNote: 'before the schema change',
      forceFullSnapshot: true,
    });
    const cluster = (await t.rest('GET', `/workloads/${db()}`)).body.data.clusterId;
    const status = await dataOf(
      /* GraphQL */ `
        query Status($input: GetMssqlAsyncRequestStatusInput!) {
          mssqlJobStatus(input: $input) {
            id
            links {
              href
            }
          }
        }
      `,
      { input: { clusterUuid: cluster, id: backup.id } },
    );
    expect(status.mssqlJobStatus.id).toBe(backup.id);
  });

  const SLA_DOMAIN = /* GraphQL */ `
    query Sla($id: UUID!, $shouldShowPausedClusters: Boolean) {
      slaDomain(id: $id, shouldShowPausedClusters: $shouldShowPausedClusters) {
        __typename
        id
        ... on GlobalSlaReply {
          protectedObjectCount
          pausedClustersInfo {
            pausedClustersCount
            pausedClusters {
              id
              name
              status
            }
          }
        }
      }
    }
  `;
  const STATUSES = /* GraphQL */ `
    query Statuses($id: UUID!, $filter: [SlaStatusFilterInput!]) {
      globalSlaStatuses(SlaId: $id, filter: $filter) {
        count
        nodes {
          cluster {
            id
            name
          }
          pauseStatus
          pausedSlaInfo {
            pausedBy
            pauseNote
            pauseStartDate
          }
        }
      }
    }
  `;
  const PAUSE = /* GraphQL */ `
    mutation Pause($input: PauseSlaInput!) {
      pauseSla(input: $input) {
        success
      }
    }
  `;

  it('remembers who paused an SLA Domain on a cluster, when and why, whoever paused it and however', async () => {
    const silver = slaId('Silver');
    const [first, second, third] = connected();
    const before = Date.now();
    // paw, through GraphQL: its service account's name, no note (PauseSlaInput has none).
    await dataOf(PAUSE, { input: { slaId: silver, clusterUuids: [first?.id], pauseSla: true } });
    // An administrator by hand, on another cluster.
    const byHand = await call('POST', `${t.sim.baseUrl}/_sim/sla-domains/${silver}/pause`, {
      json: { clusterIds: [second?.id] },
    });
    expect(byHand.status).toBe(200);
    // Through REST, by the caller too.
    expect(
      (await t.rest('POST', `/sla-domains/${silver}/pause`, { json: { clusterIds: [third?.id] } }))
        .status,
    ).toBe(200);

    const statuses = (await dataOf(STATUSES, { id: silver })).globalSlaStatuses.nodes;
    const on = (cluster: { id: string } | undefined) =>
      statuses.find((node: any) => node.cluster.id === cluster?.id);
    expect(on(first)).toMatchObject({
      pauseStatus: 'PAUSED',
      pausedSlaInfo: { pausedBy: 'paw-automation', pauseNote: '' },
    });
    expect(Date.parse(on(first).pausedSlaInfo.pauseStartDate)).toBeGreaterThanOrEqual(before - 5);
    expect(on(second).pausedSlaInfo).toMatchObject({
      pausedBy: t.fixtures.user.email,
      pauseNote: expect.stringMatching(/\w/),
    });
    expect(on(third).pausedSlaInfo.pausedBy).toBe('paw-automation');
    const notPaused = statuses.filter((node: any) => node.pauseStatus !== 'PAUSED');
    expect(notPaused.length).toBeGreaterThan(0);
    expect(notPaused.every((node: any) => node.pausedSlaInfo === null)).toBe(true);

    // Pausing again keeps who paused it first.
    await dataOf(PAUSE, { input: { slaId: silver, clusterUuids: [second?.id], pauseSla: true } });
    const again = (
      await dataOf(STATUSES, {
        id: silver,
        filter: [{ field: 'CLUSTER_UUID', text: second?.id }],
      })
    ).globalSlaStatuses.nodes;
    expect(again).toHaveLength(1);
    expect(again[0].pausedSlaInfo.pausedBy).toBe(t.fixtures.user.email);

    const pausedOnly = (
      await dataOf(STATUSES, { id: silver, filter: [{ field: 'PAUSE_STATUS', text: 'PAUSED' }] })
    ).globalSlaStatuses.nodes.map((node: any) => node.cluster.id);
    expect(pausedOnly.sort()).toEqual([first?.id, second?.id, third?.id].sort());

    const shown = (await dataOf(SLA_DOMAIN, { id: silver, shouldShowPausedClusters: true }))
      .slaDomain;
    expect(shown.__typename).toBe('GlobalSlaReply');
    expect(shown.pausedClustersInfo.pausedClustersCount).toBe(3);
    expect(
      shown.pausedClustersInfo.pausedClusters.map((cluster: any) => cluster.id).sort(),
    ).toEqual(pausedOnly);
    const hidden = (await dataOf(SLA_DOMAIN, { id: silver })).slaDomain;
    expect(hidden.pausedClustersInfo).toBeNull();

    // Resumed, nothing is left of it.
    await dataOf(PAUSE, {
      input: { slaId: silver, clusterUuids: pausedOnly, pauseSla: false },
    });
    const resumed = (await dataOf(STATUSES, { id: silver })).globalSlaStatuses.nodes;
    expect(resumed.every((node: any) => node.pausedSlaInfo === null)).toBe(true);
  });

  const SLA_DOMAINS = /* GraphQL */ `
    query Slas(
      $last: Int
      $sortBy: SlaQuerySortByField
      $sortOrder: SortOrder
      $filter: [GlobalSlaFilterInput!]
      $shouldShowProtectedObjectCount: Boolean
      $contextFilter: ContextFilterTypeEnum
    ) {
      slaDomains(
        last: $last
        sortBy: $sortBy
        sortOrder: $sortOrder
        filter: $filter
        shouldShowProtectedObjectCount: $shouldShowProtectedObjectCount
        contextFilter: $contextFilter
      ) {
        nodes {
          name
          ... on GlobalSlaReply {
            objectTypes
            protectedObjectCount
          }
        }
      }
    }
  `;

  it('sorts and filters SLA Domains, counting protected objects when asked to', async () => {
    const byCount = (
      await dataOf(SLA_DOMAINS, {
        sortBy: 'PROTECTED_OBJECT_COUNT',
        sortOrder: 'DESC',
        shouldShowProtectedObjectCount: true,
      })
    ).slaDomains.nodes;
    const counts = byCount.map((node: any) => node.protectedObjectCount);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    expect(counts[0]).toBeGreaterThan(0);
    const uncounted = (await dataOf(SLA_DOMAINS)).slaDomains.nodes;
    expect(uncounted.every((node: any) => node.protectedObjectCount === 0)).toBe(true);

    const named = (
      await dataOf(SLA_DOMAINS, {
        filter: [{ field: 'NAME_EXACT_MATCH', textList: ['Gold', 'Bronze'] }],
      })
    ).slaDomains.nodes.map((node: any) => node.name);
    expect(named).toEqual(['Bronze', 'Gold']);
    // Both kinds of fileset share one word; NAS shares have their own (NAS_OBJECT_TYPE).
    const filesets = (
      await dataOf(SLA_DOMAINS, {
        filter: [{ field: 'OBJECT_TYPE', objectTypeList: ['FILESET_OBJECT_TYPE'] }],
        contextFilter: 'DEFAULT',
      })
    ).slaDomains.nodes;
    expect(filesets.map((node: any) => node.name)).toContain('Archive');
    expect(filesets.find((node: any) => node.name === 'Archive').objectTypes).toEqual([
      'VSPHERE_OBJECT_TYPE',
      'FILESET_OBJECT_TYPE',
      'NAS_OBJECT_TYPE',
    ]);
    const lastTwo = (await dataOf(SLA_DOMAINS, { last: 2 })).slaDomains.nodes.map(
      (node: any) => node.name,
    );
    expect(lastTwo).toEqual(['SQL Hourly', 'Silver']);

    const archival = await errorOf(SLA_DOMAINS, {
      filter: [
        { field: 'NAME', text: 'Gold' },
        { field: 'ARCHIVAL_LOCATION_ID', text: 'x' },
      ],
    });
    expect(archival?.message).toMatch(/^filter\[1\]\.field: /);
  });

  const CLUSTERS = /* GraphQL */ `
    query Clusters($filter: ClusterFilterInput, $sortBy: ClusterSortByEnum, $sortOrder: SortOrder) {
      clusterConnection(filter: $filter, sortBy: $sortBy, sortOrder: $sortOrder) {
        nodes {
          id
          name
          type
          version
          status
        }
      }
    }
  `;

  it('filters clusters by id, excluded id, state, type and version, and sorts them', async () => {
    const all = (await dataOf(CLUSTERS)).clusterConnection.nodes;
    const [first, second] = all;
    const some = (
      await dataOf(CLUSTERS, { filter: { id: [first.id, second.id], excludeId: [second.id] } })
    ).clusterConnection.nodes;
    expect(some.map((node: any) => node.id)).toEqual([first.id]);
    const recent = (
      await dataOf(CLUSTERS, { filter: { minSoftwareVersion: '9.6.0', type: ['OnPrem'] } })
    ).clusterConnection.nodes;
    expect(recent.map((node: any) => node.name).sort()).toEqual(['dc1-prod-cl01', 'dc2-prod-cl02']);
    const down = (await dataOf(CLUSTERS, { filter: { isInFatalOrDisconnectedState: true } }))
      .clusterConnection.nodes;
    expect(down.map((node: any) => node.status)).toEqual(['Disconnected']);
    const byVersion = (
      await dataOf(CLUSTERS, { sortBy: 'INSTALLED_VERSION', sortOrder: 'DESC' })
    ).clusterConnection.nodes.map((node: any) => node.version);
    expect(byVersion[0]).toBe('9.7.0');
    expect(byVersion.at(-1)).toBe('9.4.2');
    const registered = await errorOf(CLUSTERS, { sortBy: 'RegisteredAt' });
    expect(registered?.message).toMatch(/^sortBy: /);
  });

  const ACTIVITY = /* GraphQL */ `
    query Activity(
      $first: Int
      $sortBy: ActivitySeriesSortField
      $sortOrder: SortOrder
      $filters: ActivitySeriesFilter
    ) {
      activitySeriesConnection(
        first: $first
        sortBy: $sortBy
        sortOrder: $sortOrder
        filters: $filters
      ) {
        count
        nodes {
          id
          fid
          objectId
          objectName
          objectType
          clusterUuid
          clusterName
          lastActivityStatus
          lastActivityType
          severity
          startTime
          lastUpdated
        }
      }
    }
  `;

  it('filters activity series by update time, cluster, severity and name, sorts them, and speaks the schema words', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    await dataOf(VM_SNAPSHOT, { input: { id: vm() } });
    const cluster = (await t.rest('GET', `/workloads/${vm()}`)).body.data.clusterId;
    const done = await eventually('the backup to succeed', async () => {
      const nodes = (
        await dataOf(ACTIVITY, {
          filters: {
            lastUpdatedTimeGt: since,
            clusterId: [cluster],
            severity: ['SEVERITY_INFO'],
            lastActivityStatus: ['SUCCESS'],
            objectType: ['VMWARE_VM'],
          },
        })
      ).activitySeriesConnection.nodes;
      return nodes.length > 0 ? nodes : undefined;
    });
    expect(done[0]).toMatchObject({
      id: expect.any(Number),
      fid: vm(),
      objectType: 'VmwareVm',
      clusterUuid: cluster,
      lastActivityStatus: 'Success',
      lastActivityType: 'Backup',
      severity: 'Info',
    });
    const byName = (await dataOf(ACTIVITY, { filters: { objectName: done[0].objectName } }))
      .activitySeriesConnection.nodes;
    expect(byName.every((node: any) => node.objectName === done[0].objectName)).toBe(true);

    // An SLA Domain's series happens on the platform itself.
    const slaSeries = (
      await dataOf(ACTIVITY, { first: 1000, filters: { objectType: ['SLA_DOMAIN'] } })
    ).activitySeriesConnection.nodes;
    expect(slaSeries.length).toBeGreaterThan(0);
    expect(slaSeries[0]).toMatchObject({
      objectType: 'SlaDomain',
      clusterUuid: '00000000-0000-0000-0000-000000000000',
      clusterName: expect.any(String),
      lastActivityType: 'Configuration',
    });

    const oldestFirst = (
      await dataOf(ACTIVITY, { first: 1000, sortBy: 'START_TIME', sortOrder: 'ASC' })
    ).activitySeriesConnection.nodes.map((node: any) => node.startTime);
    expect(oldestFirst).toEqual([...oldestFirst].sort());
    const newestUpdate = (
      await dataOf(ACTIVITY, { first: 1000 })
    ).activitySeriesConnection.nodes.map((node: any) => node.lastUpdated);
    expect(newestUpdate).toEqual([...newestUpdate].sort().reverse());

    const users = await errorOf(ACTIVITY, { filters: { userIds: ['operator@example.com'] } });
    expect(users?.message).toMatch(/^filters\.userIds: /);
  });

  const ROTATE = /* GraphQL */ `
    mutation Rotate($id: String!) {
      rotateServiceAccountSecret(input: { id: $id }) {
        clientId
        suspendedTprPolicyIds
      }
    }
  `;

  it('reports the quorum-authorization policies a rotation suspended, as /_sim sets them', async () => {
    const create = await dataOf(
      /* GraphQL */ `
        mutation Create($input: CreateServiceAccountInput!) {
          createServiceAccount(input: $input) {
            clientId
          }
        }
      `,
      { input: { name: 'tpr-rotated', roleIds: [] } },
    );
    const id = create.createServiceAccount.clientId;
    expect((await dataOf(ROTATE, { id })).rotateServiceAccountSecret.suspendedTprPolicyIds).toEqual(
      [],
    );
    const set = await call('PUT', `${t.sim.baseUrl}/_sim/suspended-tpr-policies`, {
      json: { policyIds: ['tpr-policy-1', 'tpr-policy-2'] },
    });
    expect(set.body).toEqual({ policyIds: ['tpr-policy-1', 'tpr-policy-2'] });
    expect((await dataOf(ROTATE, { id })).rotateServiceAccountSecret.suspendedTprPolicyIds).toEqual(
      ['tpr-policy-1', 'tpr-policy-2'],
    );
    await call('PUT', `${t.sim.baseUrl}/_sim/suspended-tpr-policies`, { json: { policyIds: [] } });
  });

  const ACCOUNTS = /* GraphQL */ `
    query Accounts(
      $last: Int
      $before: String
      $sortBy: ServiceAccountSortBy
      $sortOrder: SortOrder
      $roleIds: [UUID!]
    ) {
      serviceAccounts(
        last: $last
        before: $before
        sortBy: $sortBy
        sortOrder: $sortOrder
        roleIds: $roleIds
      ) {
        nodes {
          name
        }
        pageInfo {
          startCursor
          hasPreviousPage
        }
      }
    }
  `;

  it('sorts service accounts by name both ways, pages them backward, and has no groups', async () => {
    const descending = (
      await dataOf(ACCOUNTS, { sortBy: 'NAME', sortOrder: 'DESC', last: 1000 })
    ).serviceAccounts.nodes.map((node: any) => node.name);
    expect(descending).toEqual([...descending].sort().reverse());
    const lastTwo = (await dataOf(ACCOUNTS, { last: 2 })).serviceAccounts;
    const ascending = [...descending].reverse();
    expect(lastTwo.nodes.map((node: any) => node.name)).toEqual(ascending.slice(-2));
    const twoBefore = (
      await dataOf(ACCOUNTS, { last: 2, before: lastTwo.pageInfo.startCursor })
    ).serviceAccounts.nodes.map((node: any) => node.name);
    expect(twoBefore).toEqual(ascending.slice(-4, -2));

    const group = await errorOf(
      /* GraphQL */ `
        mutation Assign($groupIds: [String!], $roleIds: [String!]!) {
          updateRoleAssignments(groupIds: $groupIds, roleIds: $roleIds)
        }
      `,
      { groupIds: ['backup-admins'], roleIds: [] },
    );
    expect(group).toMatchObject({ extensions: { code: 404 } });
    expect(group?.message).toMatch(/backup-admins/);
  });
});
