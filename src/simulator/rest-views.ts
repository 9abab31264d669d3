import { isoTime } from './clock.js';
import type { z } from 'zod';
import type { SimCluster, SimEvent, SimSlaDomain, SimSnapshot, SimWorkload } from './records.js';
import type {
  clusterSchema,
  eventSchema,
  slaDomainSchema,
  snapshotJobSchema,
  snapshotSchema,
  workloadSchema,
} from './rest-schemas.js';
import type { SimulatorState } from './simulator-state.js';
import type { SnapshotJob } from './snapshot-jobs.js';

/** The records of docs/platform-model.md, built from the stores' records. */

export type WorkloadView = z.output<typeof workloadSchema>;

export function workloadView(state: SimulatorState, workload: SimWorkload): WorkloadView {
  const domain =
    workload.slaDomainId === null ? undefined : state.slaDomains.get(workload.slaDomainId);
  return {
    id: workload.id,
    name: workload.name,
    type: workload.type,
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

/** `/api/rest/workloads/{workloadId}/snapshot-jobs/{jobId}`, relative to `{base_url}`. */
export function jobStatusPath(job: SnapshotJob): string {
  return `/api/rest/workloads/${job.workload.id}/snapshot-jobs/${encodeURIComponent(job.id)}`;
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
    status: current.status,
    progress: current.progress,
    startTime: current.startTime === null ? null : isoTime(current.startTime),
    endTime: current.endTime === null ? null : isoTime(current.endTime),
    nodeId: job.nodeId,
    error: current.error,
    snapshotId: current.snapshotId,
    links: [{ href: `${state.baseUrl}${jobStatusPath(job)}`, rel: 'self' }],
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
    objectTypes: [...domain.objectTypes],
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

export function eventView(event: SimEvent): z.output<typeof eventSchema> {
  return {
    id: event.id,
    time: isoTime(event.time),
    type: event.type,
    status: event.status,
    severity: event.severity,
    objectId: event.objectId,
    objectName: event.objectName,
    objectType: event.objectType,
    clusterId: event.clusterId,
    jobId: event.jobId,
    message: event.message,
  };
}
