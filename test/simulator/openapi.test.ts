// Conformance tests read JSON bodies of many shapes and assert each: `any` is the honest type.
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REST_OPERATION_IDS } from '../../src/simulator/operation-ids.js';
import { startTestSimulator, type TestSimulator } from './simulator-fixture.js';

// docs/platform-model.md, "operations and default routes".
const ROUTES: Record<string, [string, string]> = {
  listWorkloads: ['get', '/api/rest/workloads'],
  getWorkload: ['get', '/api/rest/workloads/{workloadId}'],
  listWorkloadSnapshots: ['get', '/api/rest/workloads/{workloadId}/snapshots'],
  takeSnapshot: ['post', '/api/rest/workloads/{workloadId}/snapshots'],
  getSnapshotJobStatus: ['get', '/api/rest/workloads/{workloadId}/snapshot-jobs/{jobId}'],
  listSlaDomains: ['get', '/api/rest/sla-domains'],
  createSlaDomain: ['post', '/api/rest/sla-domains'],
  getSlaDomain: ['get', '/api/rest/sla-domains/{slaDomainId}'],
  updateSlaDomain: ['patch', '/api/rest/sla-domains/{slaDomainId}'],
  deleteSlaDomain: ['delete', '/api/rest/sla-domains/{slaDomainId}'],
  assignSlaDomain: ['post', '/api/rest/sla-domains/{slaDomainId}/assign'],
  removeProtection: ['post', '/api/rest/sla-domains/{slaDomainId}/unassign'],
  pauseSlaDomain: ['post', '/api/rest/sla-domains/{slaDomainId}/pause'],
  resumeSlaDomain: ['post', '/api/rest/sla-domains/{slaDomainId}/resume'],
  listClusters: ['get', '/api/rest/clusters'],
  listEvents: ['get', '/api/rest/events'],
};

describe('the OpenAPI document and the browsable reference', () => {
  let t: TestSimulator;

  beforeAll(async () => {
    t = await startTestSimulator({ workloads: 5 });
  });
  afterAll(() => t.close());

  it('serves /api/rest/openapi.json without authentication, with every operationId at its route', async () => {
    const response = await t.api('GET', '/api/rest/openapi.json');
    expect(response.status).toBe(200);
    const document = response.body;
    expect(document.openapi).toBe('3.1.0');
    const found: Record<string, [string, string]> = {};
    for (const [path, item] of Object.entries(
      document.paths as Record<string, Record<string, { operationId?: string }>>,
    )) {
      for (const [method, operation] of Object.entries(item)) {
        if (operation.operationId !== undefined) found[operation.operationId] = [method, path];
      }
    }
    expect(found).toEqual(ROUTES);
    expect(Object.keys(ROUTES).sort()).toEqual([...REST_OPERATION_IDS].sort());
  });

  it('documents the parameters, bodies and records from the validating schemas', async () => {
    const document = (await t.api('GET', '/api/rest/openapi.json')).body;
    const list = document.paths['/api/rest/workloads'].get;
    const first = list.parameters.find((parameter: { name: string }) => parameter.name === 'first');
    expect(first.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000, default: 50 });
    expect(first.description).toBe('page size, 1..1000');
    const type = list.parameters.find((parameter: { name: string }) => parameter.name === 'type');
    expect(type.schema.type).toBe('string');
    expect(type.description).toMatch(/workload type, any spelling/);
    expect(document.components.schemas.Workload.properties).toHaveProperty('slaDomainName');
    expect(document.components.schemas.SnapshotJob.properties).toHaveProperty('progress');
    const create = document.paths['/api/rest/sla-domains'].post;
    expect(create.requestBody.required).toBe(true);
    expect(
      document.paths['/api/rest/workloads/{workloadId}/snapshots'].post.requestBody.required,
    ).toBe(false);
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '400', '409']));
    // Nothing but the task-based REST interface is in it.
    expect(Object.keys(document.paths).every((path) => path.startsWith('/api/rest/'))).toBe(true);
  });

  it('serves a browsable reference at /api/rest/docs', async () => {
    const page = await t.api('GET', '/api/rest/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('swagger');
    const spec = await t.api('GET', '/api/rest/docs/json');
    expect(spec.body.paths).toHaveProperty('/api/rest/workloads');
  });
});
