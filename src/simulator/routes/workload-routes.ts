import { z } from 'zod';
import { jobStatusMetadata } from '../job-status-link.js';
import { inArrayOrder } from '../pagination.js';
import { collectionEnvelope } from '../rest-collection.js';
import { requirePermission } from '../permission-check.js';
import { SNAPSHOTTABLE_TYPES, type SimWorkload } from '../records.js';
import { RestError, successEnvelope } from '../rest-error.js';
import { layoutRoute } from '../rest-layouts.js';
import {
  collectionEnvelopeOf,
  envelopeOf,
  errorResponses,
  listWorkloadsQuery,
  pageQuery,
  snapshotJobSchema,
  snapshotSchema,
  takeSnapshotBody,
  workloadSchema,
  workloadV2Schema,
} from '../rest-schemas.js';
import { jobStatusLocation, snapshotJobView, snapshotView, workloadView } from '../rest-views.js';
import { operation, type ZodApp } from '../route-config.js';
import type { SimulatorState } from '../simulator-state.js';
import type { SnapshotJob, SnapshotRequest } from '../snapshot-jobs.js';
import { snapshotsOfWorkload } from '../workload-snapshots.js';

const rest = { bearerAuth: true, rateLimited: true };
const tags = ['Workloads'];

/** Workloads, their snapshots, on-demand snapshots and their jobs, where the layout puts them. */
export function registerWorkloadRoutes(app: ZodApp, state: SimulatorState): void {
  const layout = state.options.restLayout;
  const route = (operation: Parameters<typeof layoutRoute>[1]) => layoutRoute(layout, operation);
  const workloadRecord = layout === 'v2' ? workloadV2Schema : workloadSchema;
  const requireWorkload = (workloadId: string): SimWorkload => {
    const workload = state.inventory.workload(workloadId);
    if (workload === undefined) throw RestError.notFound(`workload ${workloadId} not found`);
    return workload;
  };

  const list = route('listWorkloads');
  app.route({
    method: list.method,
    url: list.url,
    config: operation('listWorkloads', 'rest', rest),
    schema: {
      operationId: list.operationId,
      tags,
      summary: 'List workloads (the connectivity test)',
      querystring: listWorkloadsQuery,
      response: { 200: collectionEnvelopeOf(workloadRecord), ...errorResponses },
    },
    handler: async (request) => {
      requirePermission(state, request, 'VIEW_INVENTORY');
      const { name, type: typeWord, clusterId, slaDomainId, first, after } = request.query;
      const types = typeWord === undefined ? undefined : state.words.parseWorkloadTypes(typeWord);
      if (types?.length === 0) {
        throw RestError.invalid(`type: ${typeWord ?? ''} is not a workload type`);
      }
      const needle = name?.toLowerCase();
      const filtered =
        needle !== undefined ||
        types !== undefined ||
        clusterId !== undefined ||
        slaDomainId !== undefined;
      return collectionEnvelope(
        {
          list: 'workloads',
          items: inArrayOrder(state.inventory.workloads),
          keyOf: (workload) => [workload.name, workload.id],
          filter: filtered
            ? (workload) =>
                (types === undefined || types.includes(workload.type)) &&
                (clusterId === undefined || workload.cluster.id === clusterId) &&
                (slaDomainId === undefined || workload.slaDomainId === slaDomainId) &&
                (needle === undefined || workload.name.toLowerCase().includes(needle))
            : undefined,
        },
        { first, after },
        (workload) => workloadView(state, workload),
      );
    },
  });

  const get = route('getWorkload');
  app.route({
    method: get.method,
    url: get.url,
    config: operation('getWorkload', 'rest', rest),
    schema: {
      operationId: get.operationId,
      tags,
      summary: 'Get a workload',
      params: get.params,
      response: { 200: envelopeOf(workloadRecord), ...errorResponses },
    },
    handler: async (request) => {
      requirePermission(state, request, 'VIEW_INVENTORY');
      return successEnvelope(
        workloadView(state, requireWorkload(get.param(request.params, 'workloadId'))),
      );
    },
  });

  const snapshotList = route('listWorkloadSnapshots');
  app.route({
    method: snapshotList.method,
    url: snapshotList.url,
    config: operation('listWorkloadSnapshots', 'rest', rest),
    schema: {
      operationId: snapshotList.operationId,
      tags,
      summary: "List a workload's snapshots, newest first",
      params: snapshotList.params,
      querystring: pageQuery,
      response: { 200: collectionEnvelopeOf(snapshotSchema), ...errorResponses },
    },
    handler: async (request) => {
      requirePermission(state, request, 'VIEW_INVENTORY');
      const workload = requireWorkload(snapshotList.param(request.params, 'workloadId'));
      return collectionEnvelope(
        {
          list: `snapshots:${workload.id}`,
          items: inArrayOrder(snapshotsOfWorkload(state, workload)),
          keyOf: (snapshot) => [snapshot.date, snapshot.id],
          descending: true,
        },
        request.query,
        snapshotView,
      );
    },
  });

  const take = route('takeSnapshot');
  app.route({
    method: take.method,
    url: take.url,
    config: operation('takeSnapshot', 'rest', rest),
    schema: {
      operationId: take.operationId,
      tags,
      summary: 'Take an on-demand snapshot (vSphere VMs and SQL Server databases only)',
      description:
        'Answers 202 with the snapshot job in data and the job-status link in metadata. With no ' +
        'slaDomainId and a workload without an SLA Domain, the snapshot is kept forever.',
      params: take.params,
      body: takeSnapshotBody,
      response: {
        202: envelopeOf(snapshotJobSchema),
        ...errorResponses,
        503: z.unknown().describe('CLUSTER_UNAVAILABLE envelope, or the gateway'),
      },
    },
    handler: async (request, reply) => {
      requirePermission(state, request, 'TAKE_SNAPSHOT');
      const workload = requireWorkload(take.param(request.params, 'workloadId'));
      const job = triggerSnapshot(state, workload, request.body?.slaDomainId ?? undefined);
      void reply.code(202);
      const location = jobStatusLocation(state, job);
      return successEnvelope(
        snapshotJobView(state, job, job.triggeredAt),
        jobStatusMetadata(state.jobStatusLink, location.origin, location.path),
      );
    },
  });

  const status = route('getSnapshotJobStatus');
  app.route({
    method: status.method,
    url: status.url,
    config: operation('getSnapshotJobStatus', 'rest', rest),
    schema: {
      operationId: status.operationId,
      tags,
      summary: 'Check the status of a snapshot job',
      description: 'Job ids contain ":"; percent-encode them in the path.',
      params: status.params,
      response: { 200: envelopeOf(snapshotJobSchema), ...errorResponses },
    },
    handler: async (request) => {
      requirePermission(state, request, 'VIEW_INVENTORY');
      const jobId = status.param(request.params, 'jobId');
      // The layout's route may name the workload (default) or not (v2's top-level lookup).
      const workloadId = status.param(request.params, 'workloadId');
      const workload = workloadId === '' ? undefined : requireWorkload(workloadId);
      const job = state.jobs.find(jobId);
      if (job === undefined || (workload !== undefined && job.workload.id !== workload.id)) {
        throw RestError.notFound(
          `snapshot job ${jobId}${workload === undefined ? '' : ` of workload ${workload.id}`} not found`,
        );
      }
      return successEnvelope(snapshotJobView(state, job));
    },
  });
}

/**
 * Triggers an on-demand snapshot, as both interfaces do: only vSphere VMs and SQL Server
 * databases, a retention SLA Domain that protects the workload's type, a connected cluster.
 * Throws RestError (GraphQL turns it into a field error); counts the trigger in the stats.
 */
export function triggerSnapshot(
  state: SimulatorState,
  workload: SimWorkload,
  slaDomainId: string | undefined,
  request?: SnapshotRequest,
): SnapshotJob {
  const typeWord = state.words.workloadType(workload.type);
  if (!SNAPSHOTTABLE_TYPES.has(workload.type)) {
    throw new RestError(
      400,
      'UNSUPPORTED_WORKLOAD_TYPE',
      `on-demand snapshots are supported only for vSphere VMs (${state.words.workloadType('VSPHERE_VM')}) ` +
        `and SQL Server databases (${state.words.workloadType('MSSQL_DATABASE')}); ${workload.name} is ${typeWord}`,
    );
  }
  const domain =
    slaDomainId !== undefined
      ? state.slaDomains.require(slaDomainId)
      : workload.slaDomainId === null
        ? null
        : (state.slaDomains.get(workload.slaDomainId) ?? null);
  if (domain !== null && !domain.objectTypes.includes(workload.type)) {
    throw RestError.invalid(`SLA Domain ${domain.name} does not protect ${typeWord} workloads`);
  }
  if (workload.cluster.connectionState === 'Disconnected') {
    throw new RestError(
      503,
      'CLUSTER_UNAVAILABLE',
      `cluster ${workload.cluster.name} of workload ${workload.name} is Disconnected`,
    );
  }
  const job = state.jobs.trigger(workload, domain, request);
  state.stats.snapshotTrigger(workload.id);
  return job;
}
