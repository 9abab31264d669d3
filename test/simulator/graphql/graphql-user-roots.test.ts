// Conformance tests read JSON bodies of many shapes and assert each: `any` is the honest type.
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSimulator, type TestSimulator } from '../simulator-fixture.js';

const SNAPPABLES = `query { snappableConnection(first: 1000, filter: { objectType: [VmwareVirtualMachine] }) {
  nodes { fid name cluster { id name } slaDomain { id name } } } }`;
const VMS = `query { vSphereVmNewConnection(first: 1000) { count nodes {
  id name cluster { id name } effectiveSlaDomain { id name } slaAssignment isRelic
  newestSnapshot { id } snapshotConnection(first: 1000) { count nodes { id date } }
  guestOsName primaryClusterLocation { id name } } } }`;

/**
 * The roots users list and protect their VMs and databases with, over the same world as paw's
 * roots; the platform's answer shapes (not found, a field behind a feature flag); and what the
 * simulator fills in for what its world does not model.
 */
describe("GraphQL: the whole published schema, users' roots", () => {
  let t: TestSimulator;

  beforeAll(async () => {
    t = await startTestSimulator({
      workloads: 30,
      timeScale: 3000,
      jobs: { failureRate: 0, cancelRate: 0 },
    });
  });
  afterAll(() => t.close());

  const post = async (query: string, variables: Record<string, unknown> = {}) => {
    // A fresh token each time: at timeScale 3000 one lives 14 s of real time.
    const token = await t.token('admin');
    const response = await t.api('POST', '/api/graphql', { token, json: { query, variables } });
    expect(response.status).toBe(200);
    return response.body as { data: any; errors?: any[]; code?: number; message?: string };
  };

  it('lists the same VMs through vSphereVmNewConnection as through snappableConnection', async () => {
    const snappables = (await post(SNAPPABLES)).data.snappableConnection.nodes;
    const vms = await post(VMS);
    expect(vms.errors).toBeUndefined();
    const nodes = vms.data.vSphereVmNewConnection.nodes;
    expect(nodes.length).toBeGreaterThan(0);
    expect(
      nodes.map((vm: any) => ({
        fid: vm.id,
        name: vm.name,
        cluster: vm.cluster,
        slaDomain: vm.effectiveSlaDomain.id === 'UNPROTECTED' ? null : vm.effectiveSlaDomain,
      })),
    ).toEqual(
      snappables.map((node: any) => ({
        ...node,
        slaDomain:
          node.slaDomain === null ? null : { id: node.slaDomain.id, name: node.slaDomain.name },
      })),
    );
    // What the world does not model is filled, the same way every time.
    const again = (await post(VMS)).data.vSphereVmNewConnection.nodes;
    expect(again.map((vm: any) => vm.guestOsName)).toEqual(nodes.map((vm: any) => vm.guestOsName));
    expect(typeof nodes[0].guestOsName).toBe('string');
  });

  it('reads a protection change made by assignSla back through every root', async () => {
    const vm = t.fixtures.workloads.samples.unprotected ?? '';
    const domains = (
      await post('{ slaDomains { nodes { id name ... on GlobalSlaReply { objectTypes } } } }')
    ).data.slaDomains.nodes;
    const gold = domains.find((domain: any) => domain.objectTypes.includes('VSPHERE_OBJECT_TYPE'));
    const assigned = await post(
      `mutation($input: AssignSlaInput!) { assignSla(input: $input) { success } }`,
      {
        input: { objectIds: [vm], slaDomainAssignType: 'protectWithSlaId', slaOptionalId: gold.id },
      },
    );
    expect(assigned).toEqual({ data: { assignSla: { success: true } } });
    const one = await post(
      `query($fid: UUID!) { vSphereVmNew(fid: $fid) { effectiveSlaDomain { id } slaAssignment } }`,
      { fid: vm },
    );
    expect(one.data.vSphereVmNew).toEqual({
      effectiveSlaDomain: { id: gold.id },
      slaAssignment: 'Direct',
    });
    const snappable = await post(
      `query($fid: [UUID!]) { snappableConnection(filter: { objectFid: $fid }) { nodes { slaDomain { id } protectionStatus } } }`,
      { fid: [vm] },
    );
    expect(snappable.data.snappableConnection.nodes).toEqual([
      { slaDomain: { id: gold.id }, protectionStatus: 'Protected' },
    ]);
    const rest = await t.rest('GET', `/workloads/${vm}`);
    expect(JSON.stringify(rest.body)).toContain(gold.id);
  });

  it('lists cluster-local SLA Domains beside the global ones, one per cluster', async () => {
    const all = await post(
      '{ slaDomains(first: 100) { nodes { __typename id name ... on ClusterSlaDomain { cluster { id name } protectedObjectCount } } } }',
    );
    expect(all.errors).toBeUndefined();
    const locals = all.data.slaDomains.nodes.filter(
      (node: any) => node.__typename === 'ClusterSlaDomain',
    );
    expect(locals.map((node: any) => node.cluster.id).sort()).toEqual(
      t.sim.clusters.map((cluster) => cluster.id).sort(),
    );
    expect(
      all.data.slaDomains.nodes.some((node: any) => node.__typename === 'GlobalSlaReply'),
    ).toBe(true);
    const [local] = locals;
    expect(local.name).toBe(`${local.cluster.name} Local`);
    const byCluster = await post(
      `query($uuid: String) { slaDomains(filter: [{ field: CLUSTER_UUID, text: $uuid }]) { nodes { id } } }`,
      { uuid: local.cluster.id },
    );
    expect(byCluster.data.slaDomains.nodes.map((node: any) => node.id)).toContain(local.id);
    const one = await post(`query($id: UUID!) { slaDomain(id: $id) { __typename id name } }`, {
      id: local.id,
    });
    expect(one.data.slaDomain).toEqual({
      __typename: 'ClusterSlaDomain',
      id: local.id,
      name: local.name,
    });
  });

  it('answers NOT_FOUND with extensions.code 404', async () => {
    const answer = await post(
      `{ vSphereVmNew(fid: "00000000-0000-4000-8000-00000000dead") { id } }`,
    );
    expect(answer.data).toBeNull();
    expect(answer.errors?.[0].message).toMatch(/^NOT_FOUND: /);
    expect(answer.errors?.[0].extensions.code).toBe(404);
  });

  it('withholds a field behind a feature flag: null, a 403 beside the rest of the data', async () => {
    t.sim.setFaults({ withheldFields: ['GlobalSlaReply.protectedObjectCount'] });
    try {
      const answer = await post(
        '{ slaDomains(shouldShowProtectedObjectCount: true) { nodes { __typename id name ... on GlobalSlaReply { protectedObjectCount } } } }',
      );
      const nodes = answer.data.slaDomains.nodes;
      const globals = nodes.filter((node: any) => node.__typename === 'GlobalSlaReply');
      expect(globals.length).toBeGreaterThan(1);
      for (const node of globals) {
        expect(node.protectedObjectCount).toBeNull();
        expect(typeof node.name).toBe('string');
      }
      expect(answer.errors).toHaveLength(globals.length);
      expect(answer.errors?.[0]).toMatchObject({
        message: 'Account does not have the appropriate features enabled to access the field.',
        path: ['slaDomains', 'nodes', nodes.indexOf(globals[0]), 'protectedObjectCount'],
        extensions: { code: 403 },
      });
    } finally {
      t.sim.setFaults({});
    }
    expect(() => t.sim.setFaults({ withheldFields: ['GlobalSlaReply.noSuchField'] })).toThrow(
      /GlobalSlaReply has no field noSuchField/,
    );
  });

  it('serves createGlobalSla, updateRoleAssignments with roleIds alone, and roots outside the world empty', async () => {
    const created = await post(
      `mutation($input: CreateGlobalSlaInput!) { createGlobalSla(input: $input) { id name } }`,
      {
        input: {
          name: 'Corpus Daily',
          objectTypes: ['VSPHERE_OBJECT_TYPE'],
          snapshotSchedule: {
            daily: { basicSchedule: { frequency: 1, retention: 7, retentionUnit: 'DAYS' } },
          },
        },
      },
    );
    expect(created.errors).toBeUndefined();
    const listed = await post(
      '{ slaDomains(filter: [{ field: NAME_EXACT_MATCH, text: "Corpus Daily" }]) { nodes { id } } }',
    );
    expect(listed.data.slaDomains.nodes).toEqual([{ id: created.data.createGlobalSla.id }]);

    const roles = await post('{ serviceAccounts { nodes { roles { id } } } }');
    const roleId = roles.data.serviceAccounts.nodes[0].roles[0].id;
    const onlyRoles = await post(`mutation { updateRoleAssignments(roleIds: ["${roleId}"]) }`);
    expect(onlyRoles).toEqual({ data: { updateRoleAssignments: true } });

    const empty = await post(
      '{ awsNativeAccounts(awsNativeProtectionFeature: EC2) { count nodes { id } } }',
    );
    expect(empty).toEqual({ data: { awsNativeAccounts: { count: 0, nodes: [] } } });
    const clusters = await post('{ allClusterConnection { count } clusterConnection { count } }');
    expect(clusters.data.allClusterConnection.count).toBe(clusters.data.clusterConnection.count);
  });

  it("follows a snapshot job's progress through its activity series, with one nodeId", async () => {
    const vm = t.fixtures.workloads.samples.vsphereVm ?? '';
    const trigger = await post(
      `mutation($input: VsphereOnDemandSnapshotInput!) { vsphereOnDemandSnapshot(input: $input) { id nodeId } }`,
      { input: { id: vm } },
    );
    const job = trigger.data.vsphereOnDemandSnapshot;
    const clusterId = (
      await post(`query($fid: UUID!) { vSphereVmNew(fid: $fid) { cluster { id } } }`, { fid: vm })
    ).data.vSphereVmNew.cluster.id;
    const status = await post(
      `query($id: String!, $c: UUID!) { vSphereVMAsyncRequestStatus(clusterUuid: $c, id: $id) { nodeId } }`,
      { id: job.id, c: clusterId },
    );
    expect(status.data.vSphereVMAsyncRequestStatus.nodeId).toBe(job.nodeId);
    const series = await post(
      `query($fid: [UUID!]) { activitySeriesConnection(filters: { objectFid: $fid }) { nodes { progress activityConnection { nodes { message status time } } } } }`,
      { fid: [vm] },
    );
    expect(series.errors).toBeUndefined();
    const [latest] = series.data.activitySeriesConnection.nodes;
    expect(latest.progress).toMatch(/^\d+%$/);
    expect(latest.activityConnection.nodes.length).toBeGreaterThan(0);
  });
});
