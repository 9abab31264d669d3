import type { SimServiceAccount } from '../accounts.js';
import { isoTime } from '../clock.js';
import type {
  SimCluster,
  SimSlaDomain,
  SimSnapshot,
  SimWorkload,
  WorkloadType,
} from '../records.js';
import { snapshotJobView } from '../rest-views.js';
import type { SimulatorState } from '../simulator-state.js';
import type { SnapshotJob } from '../snapshot-jobs.js';
import { complianceOf } from '../workload-compliance.js';
import { PUBLISHED_WORDS } from './published-words.js';

/**
 * The published schema's objects, built from the simulator's records in the schema's words,
 * with every non-null field filled. An interface's value names its implementation in
 * `__typename` (graphql-js resolves the type from it). A field whose value costs work to find is
 * a function: graphql-js calls it only when a query selects the field.
 */

/** The cluster-local id prefix of each kind (`VirtualMachine:::<fid>`). */
const LOCAL_ID_PREFIX: Record<WorkloadType, string> = {
  VSPHERE_VM: 'VirtualMachine',
  MSSQL_DATABASE: 'MssqlDatabase',
  LINUX_FILESET: 'Fileset',
  WINDOWS_FILESET: 'Fileset',
  NAS_SHARE: 'ShareFileset',
  ORACLE_DATABASE: 'OracleDatabase',
  HYPERV_VM: 'HypervVirtualMachine',
  AWS_EC2_INSTANCE: 'Ec2Instance',
};

/** `Cluster`. */
export function clusterView(cluster: SimCluster) {
  return {
    id: cluster.id,
    name: cluster.name,
    type: cluster.type,
    version: cluster.version,
    status: cluster.connectionState,
  };
}

/** What a `GlobalSlaReply` shows of what its query may leave out. */
export interface SlaDomainDetail {
  /** `pausedClustersInfo` (else null): `shouldShowPausedClusters`. */
  readonly pausedClusters: boolean;
  /** `protectedObjectCount` (else 0): `shouldShowProtectedObjectCount` of `slaDomains`. */
  readonly protectedObjectCount: boolean;
}

/** `SlaDomain`, as its one implementation here: `GlobalSlaReply`. */
export function slaDomainView(
  state: SimulatorState,
  domain: SimSlaDomain,
  detail: SlaDomainDetail,
) {
  return {
    __typename: 'GlobalSlaReply',
    id: domain.id,
    name: domain.name,
    description: domain.description,
    objectTypes: PUBLISHED_WORDS.slaObjectTypes(domain.objectTypes),
    protectedObjectCount: detail.protectedObjectCount ? domain.protectedWorkloadCount : 0,
    pausedClustersInfo: detail.pausedClusters
      ? () => {
          const paused = domain.clusterIds.flatMap((clusterId) => {
            const cluster = state.inventory.cluster(clusterId);
            return cluster !== undefined &&
              state.slaDomains.pauseStatus(domain, clusterId) === 'PAUSED'
              ? [clusterView(cluster)]
              : [];
          });
          return { pausedClusters: paused, pausedClustersCount: paused.length };
        }
      : null,
  };
}

/** An SLA Domain named inside another object: its count, not its paused clusters. */
const NESTED: SlaDomainDetail = { pausedClusters: false, protectedObjectCount: true };

export function slaDomainOf(state: SimulatorState, slaDomainId: string | null) {
  const domain = slaDomainId === null ? undefined : state.slaDomains.get(slaDomainId);
  return domain === undefined ? null : slaDomainView(state, domain, NESTED);
}

/** `GlobalSlaStatus`: an SLA Domain on one of its clusters, and who paused it there. */
export function slaStatusView(state: SimulatorState, domain: SimSlaDomain, clusterId: string) {
  const cluster = state.inventory.cluster(clusterId);
  const pause = state.slaDomains.pauseOf(domain, clusterId);
  return {
    cluster: cluster === undefined ? null : clusterView(cluster),
    pauseStatus: state.slaDomains.pauseStatus(domain, clusterId),
    pausedSlaInfo:
      pause === undefined
        ? null
        : {
            pausedBy: pause.pausedBy,
            pauseNote: pause.note,
            pauseStartDate: isoTime(pause.since),
          },
  };
}

/** `Snappable`: `fid` is the platform-wide id, `id` the cluster's own. */
export function snappableView(state: SimulatorState, workload: SimWorkload) {
  return {
    id: `${LOCAL_ID_PREFIX[workload.type]}:::${workload.id}`,
    fid: workload.id,
    name: workload.name,
    objectType: PUBLISHED_WORDS.workloadType(workload.type),
    cluster: clusterView(workload.cluster),
    slaDomain: slaDomainOf(state, workload.slaDomainId),
    location: workload.cluster.name,
    protectionStatus: workload.slaDomainId === null ? 'NoSla' : 'Protected',
    complianceStatus: () => complianceOf(state, workload),
  };
}

/** `GenericSnapshot`, as a snapshot taken on a cluster: `CdmSnapshot`. */
export function snapshotView(state: SimulatorState, snapshot: SimSnapshot) {
  return {
    __typename: 'CdmSnapshot',
    id: snapshot.id,
    snappableId: snapshot.workloadId,
    date: isoTime(snapshot.date),
    isOnDemandSnapshot: snapshot.isOnDemand,
    expirationDate: snapshot.expirationDate === null ? null : isoTime(snapshot.expirationDate),
    slaDomain: slaDomainOf(state, snapshot.slaDomainId),
  };
}

/**
 * `AsyncRequestStatus`: a snapshot job as the mutations and the status queries answer it. Its
 * `status` is a free string in the schema: the job status words of the simulator's vocabulary,
 * deliberately as varied as the real platform's. Its links name the workload's cluster node.
 */
export function asyncRequestView(state: SimulatorState, job: SnapshotJob, at?: number) {
  const record = snapshotJobView(state, job, at);
  const cluster = state.clusterBaseUrls.get(job.workload.cluster.id) ?? state.baseUrl;
  return {
    id: record.id,
    status: record.status,
    progress: record.progress,
    startTime: record.startTime,
    endTime: record.endTime,
    nodeId: record.nodeId,
    result: record.snapshotId,
    error: record.error,
    links: [{ href: `${cluster}/api/v1/snapshot-jobs/${encodeURIComponent(job.id)}`, rel: 'self' }],
  };
}

/** `ServiceAccount`: no `id` (the uuid inside `clientId` is its id); its roles. */
export function serviceAccountView(state: SimulatorState, account: SimServiceAccount) {
  return {
    clientId: account.clientId,
    name: account.name,
    description: account.description,
    integrationId: account.integrationId,
    integrationName: account.integrationName,
    lastLogin: account.lastLogin === null ? null : isoTime(account.lastLogin),
    roles: account.roleIds.flatMap((roleId) => {
      const role = state.accounts.roles.get(roleId);
      return role === undefined
        ? []
        : [{ id: role.id, name: role.name, description: `${role.name} role` }];
    }),
  };
}
