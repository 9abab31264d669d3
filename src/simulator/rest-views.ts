import { isoTime } from './clock.js';
import type { z } from 'zod';
import type { SimCluster, SimEvent, SimSlaDomain, SimSnapshot, SimWorkload } from './records.js';
import { layoutRoute } from './rest-layouts.js';
import type {
  clusterSchema,
  eventSchema,
  slaDomainSchema,
  snapshotJobSchema,
  snapshotSchema,
  workloadSchema,
  workloadV2Schema,
} from './rest-schemas.js';
import type { ActivityObject, JobStatus } from './sim-vocabulary.js';
import type { SimulatorState } from './simulator-state.js';
import type { SnapshotJob } from './snapshot-jobs.js';

/**
 * The records of docs/platform-model.md, built from the stores' records, in the simulator's
 * vocabulary and (for workloads) its REST layout.
 */

export type WorkloadView = z.output<typeof workloadSchema> | z.output<typeof workloadV2Schema>;

export function workloadView(state: SimulatorState, workload: SimWorkload): WorkloadView {
  const domain =
    workload.slaDomainId === null ? undefined : state.slaDomains.get(workload.slaDomainId);
  const type = state.words.workloadType(workload.type);
  if (state.options.restLayout === 'v2') {
    return {
      id: workload.id,
      name: workload.name,
      objectType: type,
      cluster: { id: workload.cluster.id, name: workload.cluster.name },
      slaDomain: domain === undefined ? null : { id: domain.id, name: domain.name },
    };
  }
  return {
    id: workload.id,
    name: workload.name,
    type,
    clusterId: workload.cluster.id,
    clusterName: workload.cluster.name,
    slaDomainId: domain?.id ?? null,
    slaDomainName: domain?.name ?? null,
  };
}

export function snapshotView(snapshot: SimSnapshot): z.output<typeof snapshotSchema> {
  return {
    id: snapshot.id,
    workloadId: snapshot.workloadId,
    date: isoTime(snapshot.date),
    isOnDemand: snapshot.isOnDemand,
    slaDomainId: snapshot.slaDomainId,
    expirationDate: snapshot.expirationDate === null ? null : isoTime(snapshot.expirationDate),
    jobId: snapshot.jobId,
  };
}

/**
 * Where a job's status is read: the REST route of the layout (relative to `{base_url}`), or,
 * when links point at cluster nodes, the workload's cluster (relative to its origin).
 */
export function jobStatusLocation(
  state: SimulatorState,
  job: SnapshotJob,
): { readonly origin: string; readonly path: string } {
  if (state.jobStatusLink.target === 'cluster-node') {
    return {
      origin: state.clusterBaseUrls.get(job.workload.cluster.id) ?? state.baseUrl,
      path: `/api/v1/snapshot-jobs/${encodeURIComponent(job.id)}`,
    };
  }
  const route = layoutRoute(state.options.restLayout, 'getSnapshotJobStatus');
  return {
    origin: state.baseUrl,
    path: `/api/rest${route.pathFor({ workloadId: job.workload.id, jobId: job.id })}`,
  };
}

/** The job as a poller sees it at `at` (now by default; the trigger answers it as created). */
export function snapshotJobView(
  state: SimulatorState,
  job: SnapshotJob,
  at = state.clock.now(),
): z.output<typeof snapshotJobSchema> {
  const current = state.jobs.stateOf(job, at);
  return {
    id: job.id,
    workloadId: job.workload.id,
    status: state.words.jobStatus(current.status as JobStatus),
    progress: current.progress,
    startTime: current.startTime === null ? null : isoTime(current.startTime),
    endTime: current.endTime === null ? null : isoTime(current.endTime),
    nodeId: job.nodeId,
    error: current.error,
    snapshotId: current.snapshotId,
    links: [{ href: linkOf(jobStatusLocation(state, job)), rel: 'self' }],
  };
}

export function slaDomainView(
  state: SimulatorState,
  domain: SimSlaDomain,
): z.output<typeof slaDomainSchema> {
  return {
    id: domain.id,
    name: domain.name,
    description: domain.description,
    objectTypes: state.words.slaObjectTypes(domain.objectTypes),
    frequency: { ...domain.frequency },
    retention: { ...domain.retention },
    protectedWorkloadCount: domain.protectedWorkloadCount,
    clusters: domain.clusterIds.map((clusterId) => ({
      clusterId,
      clusterName: state.inventory.cluster(clusterId)?.name ?? '',
      pauseStatus: state.slaDomains.pauseStatus(domain, clusterId),
    })),
  };
}

export function clusterView(cluster: SimCluster): z.output<typeof clusterSchema> {
  return {
    id: cluster.id,
    name: cluster.name,
    type: cluster.type,
    connectionState: cluster.connectionState,
    version: cluster.version,
  };
}

export function eventView(state: SimulatorState, event: SimEvent): z.output<typeof eventSchema> {
  return {
    id: event.id,
    time: isoTime(event.time),
    type: state.words.eventType(event.type),
    status: state.words.eventStatus(event.status),
    severity: event.severity,
    objectId: event.objectId,
    objectName: event.objectName,
    objectType: state.words.eventObjectType(event.objectType as ActivityObject),
    clusterId: event.clusterId,
    jobId: state.eventsWithoutJobIds ? null : event.jobId,
    isOnDemand: event.jobId !== null,
    message: event.message,
  };
}

function linkOf(location: { readonly origin: string; readonly path: string }): string {
  return `${location.origin}${location.path}`;
}
