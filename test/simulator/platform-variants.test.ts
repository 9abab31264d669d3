// Conformance tests read JSON bodies of many shapes and assert each: `any` is the honest type.
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './http.js';
import { startTestSimulator, type TestSimulator } from './simulator-fixture.js';
import { eventually } from '../testkit/eventually.js';

/** The platforms the simulator can be (docs/platform-model.md): words, events, links, layouts. */
describe('the simulator as the platforms paw must survive', () => {
  describe('the graphql vocabulary, with one type respelled', () => {
    let t: TestSimulator;
    beforeAll(async () => {
      t = await startTestSimulator({
        seed: 4,
        timeScale: 3000,
        vocabulary: 'graphql',
        typeSpellings: { HYPERV_VM: 'HypervVmGen2' },
        jobs: { failureRate: 0, cancelRate: 0 },
      });
    });
    afterAll(() => t.close());

    it('speaks the GraphQL words in records, and reads every spelling in requests', async () => {
      const vms = await t.rest('GET', '/workloads?type=VMWARE_VM&first=1000');
      expect(vms.status).toBe(200);
      expect(vms.body.data.count).toBe(t.fixtures.workloads.byType.VSPHERE_VM);
      expect(new Set(vms.body.data.nodes.map((node: any) => node.type))).toEqual(
        new Set(['VmwareVirtualMachine']),
      );
      for (const spelling of ['VSPHERE_VM', 'vmwarevirtualmachine', 'VmwareVm']) {
        const again = await t.rest('GET', `/workloads?type=${spelling}&first=1`);
        expect(again.body.data.count, spelling).toBe(vms.body.data.count);
      }
      const hyperv = await t.rest('GET', '/workloads?type=HYPERV_VM&first=1000');
      expect(new Set(hyperv.body.data.nodes.map((node: any) => node.type))).toEqual(
        new Set(['HypervVmGen2']),
      );
      expect((await t.rest('GET', '/workloads?type=Teapot')).status).toBe(400);

      const gold = (
        await t.rest('GET', '/sla-domains?filterField=NAME_EXACT_MATCH&filterText=Gold')
      ).body.data.nodes[0];
      expect(gold.objectTypes).toEqual(
        expect.arrayContaining(['VSPHERE_OBJECT_TYPE', 'MSSQL_OBJECT_TYPE']),
      );
      const created = await t.rest('POST', '/sla-domains', {
        json: {
          name: 'words',
          objectTypes: ['Mssql', 'VSPHERE_VM'],
          frequency: { unit: 'DAILY', interval: 1 },
          retention: { unit: 'DAYS', duration: 1 },
        },
      });
      expect(created.status).toBe(201);
      expect(created.body.data.objectTypes.sort()).toEqual([
        'MSSQL_OBJECT_TYPE',
        'VSPHERE_OBJECT_TYPE',
      ]);
    });

    it('reports job statuses and events in the GraphQL words', async () => {
      const vm = t.fixtures.workloads.samples.vsphereVm ?? '';
      const taken = await t.rest('POST', `/workloads/${vm}/snapshots`, { json: {} });
      expect(taken.body.data.status).toBe('Queued');
      const path = `/workloads/${vm}/snapshot-jobs/${encodeURIComponent(taken.body.data.id)}`;
      await eventually('the job to succeed', async () => {
        const job = await t.rest('GET', path);
        return job.body.data.status === 'Success' ? job : undefined;
      });
      const events = await t.rest('GET', `/events?objectId=${vm}&type=BACKUP&status=success`);
      expect(events.body.data.nodes[0]).toMatchObject({
        type: 'Backup',
        status: 'Success',
        objectType: 'VmwareVm',
        isOnDemand: true,
        jobId: taken.body.data.id,
      });
    });
  });

  describe('events without job ids, and job links to the cluster node', () => {
    let t: TestSimulator;
    beforeAll(async () => {
      t = await startTestSimulator({
        seed: 4,
        timeScale: 3000,
        eventsWithoutJobIds: true,
        jobStatusLink: { target: 'cluster-node' },
      });
    });
    afterAll(() => t.close());

    it('leaves the job id out of events, and points the job link at the cluster, which wants its own session', async () => {
      const vm = t.fixtures.workloads.samples.vsphereVm ?? '';
      const taken = await t.rest('POST', `/workloads/${vm}/snapshots`, { json: {} });
      const link = taken.body.metadata.jobStatusUrl as string;
      const cluster = t.fixtures.clusters.find((entry) => link.startsWith(entry.baseUrl));
      expect(cluster).toBeDefined();
      expect(taken.body.data.links[0].href).toBe(link);
      expect(t.fixtures.platform).toMatchObject({
        eventsWithoutJobIds: true,
        jobStatusLinkTarget: 'cluster-node',
      });

      const events = await t.rest('GET', `/events?objectId=${vm}`);
      expect(events.body.data.nodes[0]).toMatchObject({
        type: 'BACKUP',
        jobId: null,
        isOnDemand: true,
      });

      // The platform's token is no good there; a cluster session is.
      expect((await call('GET', link, { token: await t.token() })).status).toBe(401);
      const credentials = t.fixtures.serviceAccounts.admin;
      const session = await call(
        'POST',
        `${cluster?.baseUrl ?? ''}/api/v1/service_account/session`,
        {
          json: { clientId: credentials.client_id, clientSecret: credentials.client_secret },
        },
      );
      const job = await call('GET', link, { token: session.body.token });
      expect(job.status).toBe(200);
      expect(job.body).toMatchObject({ id: taken.body.data.id });

      // Both switch at run time too.
      expect(
        (await t.api('PUT', '/_sim/platform', { json: { eventsWithoutJobIds: false } })).body,
      ).toMatchObject({ eventsWithoutJobIds: false });
      const named = await t.rest('GET', `/events?objectId=${vm}`);
      expect(named.body.data.nodes[0].jobId).toBe(taken.body.data.id);
    });
  });

  describe('the v2 REST layout', () => {
    let t: TestSimulator;
    beforeAll(async () => {
      t = await startTestSimulator({ seed: 4, timeScale: 3000, restLayout: 'v2' });
    });
    afterAll(() => t.close());

    it('serves every operation under its new path, reshaped, and nothing under the old ones', async () => {
      const vm = t.fixtures.workloads.samples.vsphereVm ?? '';
      const objects = await t.rest('GET', '/objects?first=5');
      expect(objects.status).toBe(200);
      expect(Object.keys(objects.body.data.nodes[0]).sort()).toEqual([
        'cluster',
        'id',
        'name',
        'objectType',
        'slaDomain',
      ]);
      expect((await t.rest('GET', `/objects/${vm}`)).body.data).toMatchObject({
        id: vm,
        objectType: 'VSPHERE_VM',
        cluster: { id: expect.any(String), name: expect.any(String) },
      });
      const taken = await t.rest('POST', `/objects/${vm}/on-demand-snapshots`, { json: {} });
      expect(taken.status).toBe(202);
      const job = await t.rest('GET', `/jobs/${encodeURIComponent(taken.body.data.id)}`);
      expect(job.body.data).toMatchObject({ id: taken.body.data.id, workloadId: vm });
      expect(taken.body.metadata.jobStatusUrl).toBe(
        `${t.sim.baseUrl}/api/rest/jobs/${encodeURIComponent(taken.body.data.id)}`,
      );
      expect((await t.rest('GET', '/slas')).status).toBe(200);
      expect((await t.rest('GET', '/activities')).status).toBe(200);
      expect((await t.rest('GET', '/clusters')).status).toBe(200);
      for (const old of ['/workloads', `/workloads/${vm}`, '/sla-domains', '/events']) {
        expect((await t.rest('GET', old)).status, old).toBe(404);
      }
    });

    it('publishes its OpenAPI document only where its docs page says', async () => {
      for (const usual of [
        '/api/rest/openapi.json',
        '/api/rest/docs/json',
        '/api/rest/swagger.json',
      ]) {
        expect((await t.api('GET', usual)).status, usual).toBe(404);
      }
      const page = await t.api('GET', '/api/rest/docs');
      expect(page.status).toBe(200);
      const script = /src="([^"]*swagger-initializer\.js)"/.exec(page.text)?.[1] ?? '';
      const initializer = await call(
        'GET',
        new URL(script, `${t.sim.baseUrl}/api/rest/docs/`).href,
      );
      const documentPath = /url:\s*"([^"]+)"/.exec(initializer.text)?.[1];
      expect(documentPath).toBe('/api/rest/v2/reference/openapi.json');
      const document = (await t.api('GET', documentPath ?? '')).body;
      expect(document.paths['/api/rest/jobs/{jobId}'].get.operationId).toBe('getJob');
      expect(document.paths['/api/rest/objects/{objectId}/on-demand-snapshots'].post).toMatchObject(
        {
          operationId: 'createOnDemandSnapshot',
          requestBody: { required: false },
        },
      );
      expect(Object.keys(document.paths)).not.toContain('/api/rest/workloads');
    });
  });
});
