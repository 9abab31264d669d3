import { z } from 'zod';
import { jobStatusMetadata } from '../job-status-link.js';
import { paginate } from '../pagination.js';
import { requirePermission } from '../permission-check.js';
import { SNAPSHOTTABLE_TYPES, type SimSnapshot, type SimWorkload } from '../records.js';
import { RestError, successEnvelope } from '../rest-error.js';
import {
  collectionEnvelopeOf,
  envelopeOf,
  errorResponses,
  jobParams,
  listWorkloadsQuery,
  pageQuery,
  snapshotJobSchema,
  snapshotSchema,
  takeSnapshotBody,
  workloadIdParams,
  workloadSchema,
} from '../rest-schemas.js';
import { jobStatusPath, snapshotJobView, snapshotView, workloadView } from '../rest-views.js';
import { operation, type ZodApp } from '../route-config.js';
import type { SimulatorState } from '../simulator-state.js';
import { scheduledSnapshots } from '../snapshot-history.js';

const rest = { bearerAuth: true, rateLimited: true };
const tags = ['Workloads'];

/** Workloads, their snapshots, on-demand snapshots and their jobs. */
export function registerWorkloadRoutes(app: ZodApp, state: SimulatorState): void {
  const requireWorkload = (workloadId: string): SimWorkload => {
    const workload = state.inventory.workload(workloadId);
    if (workload === undefined) throw RestError.notFound(`workload ${workloadId} not found`);
    return workload;
  };

  app.route({
    method: 'GET',
    url: '/workloads',
    config: operation('listWorkloads', 'rest', rest),
    schema: {
      operationId: 'listWorkloads',
      tags,
      summary: 'List workloads (the connectivity test)',
      querystring: listWorkloadsQuery,
      response: { 200: collectionEnvelopeOf(workloadSchema), ...errorResponses },
    },
    handler: async (request) => {
      requirePermission(state, request, 'VIEW_INVENTORY');
      const { name, type, clusterId, slaDomainId, first, after } = request.query;
      const needle = name?.toLowerCase();
      const filtered =
        needle !== undefined ||
        type !== undefined ||
        clusterId !== undefined ||
        slaDomainId !== undefined;
      const workloads = state.inventory.workloads;
      const page = paginate({
        list: 'workloads',
        length: workloads.length,
        at: (index) => workloads[index] as SimWorkload,
        keyOf: (workload) => [workload.name, workload.id],
        filter: filtered
          ? (workload) =>
              (type === undefined || workload.type === type) &&
              (clusterId === undefined || workload.cluster.id === clusterId) &&
              (slaDomainId === undefined || workload.slaDomainId === slaDomainId) &&
              (needle === undefined || workload.name.toLowerCase().includes(needle))
          : undefined,
        first,
        after,
      });
      return successEnvelope({
        ...page,
        nodes: page.nodes.map((workload) => workloadView(state, workload)),
      });
    },
  });

  app.route({
    method: 'GET',
    url: '/workloads/:workloadId',
    config: operation('getWorkload', 'rest', rest),
    schema: {
      operationId: 'getWorkload',
      tags,
      summary: 'Get a workload',
      params: workloadIdParams,
      response: { 200: envelopeOf(workloadSchema), ...errorResponses },
    },
    handler: async (request) => {
      requirePermission(state, request, 'VIEW_INVENTORY');
      return successEnvelope(workloadView(state, requireWorkload(request.params.workloadId)));
    },
  });

  app.route({
    method: 'GET',
    url: '/workloads/:workloadId/snapshots',
    config: operation('listWorkloadSnapshots', 'rest', rest),
    schema: {
      operationId: 'listWorkloadSnapshots',
      tags,
      summary: "List a workload's snapshots, newest first",
      params: workloadIdParams,
      querystring: pageQuery,
      response: { 200: collectionEnvelopeOf(snapshotSchema), ...errorResponses },
    },
    handler: async (request) => {
      requirePermission(state, request, 'VIEW_INVENTORY');
      const workload = requireWorkload(request.params.workloadId);
      const initial =
        workload.initialSlaDomainId === null
          ? undefined
          : state.initialSlaDomains.get(workload.initialSlaDomainId);
      const snapshots = [
        ...scheduledSnapshots(workload, initial, state.inventoryEpoch),
        ...state.jobs.snapshotsOf(workload.id),
      ].sort((a, b) => b.date - a.date || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
      const page = paginate({
        list: `snapshots:${workload.id}`,
        length: snapshots.length,
        at: (index) => snapshots[index] as SimSnapshot,
        keyOf: (snapshot) => [snapshot.date, snapshot.id],
        descending: true,
        first: request.query.first,
        after: request.query.after,
      });
      return successEnvelope({ ...page, nodes: page.nodes.map(snapshotView) });
    },
  });

  app.route({
    method: 'POST',
    url: '/workloads/:workloadId/snapshots',
    config: operation('takeSnapshot', 'rest', rest),
    schema: {
      operationId: 'takeSnapshot',
      tags,
      summary: 'Take an on-demand snapshot (VSPHERE_VM and MSSQL_DATABASE only)',
      description:
        'Answers 202 with the snapshot job in data and the job-status link in metadata. With no ' +
        'slaDomainId and a workload without an SLA Domain, the snapshot is kept forever.',
      params: workloadIdParams,
      body: takeSnapshotBody,
      response: {
        202: envelopeOf(snapshotJobSchema),
        ...errorResponses,
        503: z.unknown().describe('CLUSTER_UNAVAILABLE envelope, or the gateway'),
      },
    },
    handler: async (request, reply) => {
      requirePermission(state, request, 'TAKE_SNAPSHOT');
      const workload = requireWorkload(request.params.workloadId);
      if (!SNAPSHOTTABLE_TYPES.has(workload.type)) {
        throw new RestError(
          400,
          'UNSUPPORTED_WORKLOAD_TYPE',
          `on-demand snapshots are supported only for VSPHERE_VM and MSSQL_DATABASE workloads; ${workload.name} is ${workload.type}`,
        );
      }
      const requested = request.body?.slaDomainId ?? undefined;
      const domain =
        requested !== undefined
          ? state.slaDomains.require(requested)
          : workload.slaDomainId === null
            ? null
            : (state.slaDomains.get(workload.slaDomainId) ?? null);
      if (domain !== null && !domain.objectTypes.includes(workload.type)) {
        throw RestError.invalid(
          `SLA Domain ${domain.name} does not protect ${workload.type} workloads`,
        );
      }
      if (workload.cluster.connectionState === 'Disconnected') {
        throw new RestError(
          503,
          'CLUSTER_UNAVAILABLE',
          `cluster ${workload.cluster.name} of workload ${workload.name} is Disconnected`,
        );
      }
      const job = state.jobs.trigger(workload, domain);
      state.stats.snapshotTrigger(workload.id);
      void reply.code(202);
      return successEnvelope(
        snapshotJobView(state, job, job.triggeredAt),
        jobStatusMetadata(state.jobStatusLink, state.baseUrl, jobStatusPath(job)),
      );
    },
  });

  app.route({
    method: 'GET',
    url: '/workloads/:workloadId/snapshot-jobs/:jobId',
    config: operation('getSnapshotJobStatus', 'rest', rest),
    schema: {
      operationId: 'getSnapshotJobStatus',
      tags,
      summary: 'Check the status of a snapshot job',
      description: 'Job ids contain ":"; percent-encode them in the path.',
      params: jobParams,
      response: { 200: envelopeOf(snapshotJobSchema), ...errorResponses },
    },
    handler: async (request) => {
      requirePermission(state, request, 'VIEW_INVENTORY');
      const workload = requireWorkload(request.params.workloadId);
      const job = state.jobs.find(request.params.jobId);
      if (job === undefined || job.workload.id !== workload.id) {
        throw RestError.notFound(
          `snapshot job ${request.params.jobId} of workload ${workload.id} not found`,
        );
      }
      return successEnvelope(snapshotJobView(state, job));
    },
  });
}
