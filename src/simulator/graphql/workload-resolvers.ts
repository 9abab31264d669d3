import { isoTime } from '../clock.js';
import type { SimSnapshot, SimWorkload, WorkloadType } from '../records.js';
import { triggerSnapshot } from '../routes/workload-routes.js';
import { SimVocabulary } from '../sim-vocabulary.js';
import type { SimulatorState } from '../simulator-state.js';
import type { SnapshotJob } from '../snapshot-jobs.js';
import { snapshotJobView } from '../rest-views.js';
import { snapshotsOfWorkload } from '../workload-snapshots.js';
import { connection } from './connection.js';
import { asFieldErrors, fieldError, requireGrant, type GraphqlContext } from './graphql-context.js';

/** The schema's enums are its own words, whatever vocabulary the REST interface speaks. */
const SCHEMA_WORDS = new SimVocabulary('graphql');

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

interface SnappableFilter {
  readonly objectType?: readonly string[] | null;
  readonly searchTerm?: string | null;
  readonly cluster?: { readonly id?: readonly string[] | null } | null;
  readonly slaDomain?: { readonly id?: readonly string[] | null } | null;
  readonly objectFid?: readonly string[] | null;
}

function snappableView(state: SimulatorState, workload: SimWorkload) {
  const domain =
    workload.slaDomainId === null ? undefined : state.slaDomains.get(workload.slaDomainId);
  return {
    id: `${LOCAL_ID_PREFIX[workload.type]}:::${workload.id}`,
    fid: workload.id,
    name: workload.name,
    objectType: SCHEMA_WORDS.workloadType(workload.type),
    cluster: { id: workload.cluster.id, name: workload.cluster.name },
    slaDomain: domain === undefined ? null : { id: domain.id, name: domain.name },
    location: workload.cluster.name,
    protectionStatus: domain === undefined ? 'NoSla' : 'Protected',
    complianceStatus: null,
  };
}

function snapshotView(state: SimulatorState, snapshot: SimSnapshot) {
  const domain =
    snapshot.slaDomainId === null ? undefined : state.slaDomains.get(snapshot.slaDomainId);
  return {
    id: snapshot.id,
    date: isoTime(snapshot.date),
    isOnDemandSnapshot: snapshot.isOnDemand,
    expirationDate: snapshot.expirationDate === null ? null : isoTime(snapshot.expirationDate),
    slaDomain:
      snapshot.slaDomainId === null
        ? null
        : { id: snapshot.slaDomainId, name: domain?.name ?? snapshot.slaDomainId },
  };
}

/** An async request as the status queries and the mutations answer it; links name the cluster. */
function asyncRequestView(state: SimulatorState, job: SnapshotJob, at?: number) {
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

/** A workload by FID (or its cluster-local id), of the kind a mutation or query serves. */
function requireWorkload(context: GraphqlContext, id: string, type?: WorkloadType): SimWorkload {
  const fid = id.includes(':::') ? (id.split(':::').at(-1) ?? id) : id;
  const workload = context.state.inventory.workload(fid);
  if (workload === undefined) throw fieldError(404, `No object with FID ${id}`);
  if (type !== undefined && workload.type !== type) {
    throw fieldError(
      400,
      `Object ${workload.name} is a ${SCHEMA_WORDS.workloadType(workload.type)}, not a ${SCHEMA_WORDS.workloadType(type)}`,
    );
  }
  return workload;
}

function triggerOf(
  context: GraphqlContext,
  id: string,
  type: WorkloadType,
  slaId: string | null | undefined,
) {
  requireGrant(context, 'TAKE_SNAPSHOT');
  const workload = requireWorkload(context, id, type);
  const job = asFieldErrors(() => triggerSnapshot(context.state, workload, slaId ?? undefined));
  return asyncRequestView(context.state, job, job.triggeredAt);
}

function statusOf(context: GraphqlContext, clusterUuid: string, id: string, type: WorkloadType) {
  requireGrant(context, 'VIEW_INVENTORY');
  const job = context.state.jobs.find(id);
  // A request is found only on the cluster of the workload it was taken of.
  if (job === undefined || job.workload.cluster.id !== clusterUuid || job.workload.type !== type) {
    throw fieldError(404, `No request ${id} on cluster ${clusterUuid}`);
  }
  return asyncRequestView(context.state, job);
}

/** Workloads, their snapshots, on-demand snapshots and their status, from the REST routes' state. */
export const workloadResolvers = {
  snappableConnection(
    args: { first?: number | null; after?: string | null; filter?: SnappableFilter | null },
    context: GraphqlContext,
  ) {
    requireGrant(context, 'VIEW_INVENTORY');
    const { state } = context;
    const filter = args.filter ?? {};
    const types = filter.objectType?.flatMap((word) => SCHEMA_WORDS.parseWorkloadTypes(word));
    const needle = filter.searchTerm?.toLowerCase();
    const clusters = filter.cluster?.id ?? undefined;
    const domains = filter.slaDomain?.id ?? undefined;
    const fids = filter.objectFid ?? undefined;
    const workloads = state.inventory.workloads;
    return connection(
      {
        list: 'snappables',
        length: workloads.length,
        at: (index) => workloads[index] as SimWorkload,
        keyOf: (workload) => [workload.name, workload.id],
        filter: (workload) =>
          (types === undefined || types.includes(workload.type)) &&
          (needle === undefined || workload.name.toLowerCase().includes(needle)) &&
          (clusters == null || clusters.includes(workload.cluster.id)) &&
          (domains == null ||
            (workload.slaDomainId !== null && domains.includes(workload.slaDomainId))) &&
          (fids == null || fids.includes(workload.id)),
        first: args.first,
        after: args.after,
      },
      (workload) => snappableView(state, workload),
    );
  },

  snapshotOfASnappableConnection(
    args: { workloadId: string; first?: number | null; after?: string | null },
    context: GraphqlContext,
  ) {
    requireGrant(context, 'VIEW_INVENTORY');
    const workload = requireWorkload(context, args.workloadId);
    const snapshots = snapshotsOfWorkload(context.state, workload);
    return connection(
      {
        list: `snapshots:${workload.id}`,
        length: snapshots.length,
        at: (index) => snapshots[index] as SimSnapshot,
        keyOf: (snapshot) => [snapshot.date, snapshot.id],
        descending: true,
        first: args.first,
        after: args.after,
      },
      (snapshot) => snapshotView(context.state, snapshot),
    );
  },

  vsphereOnDemandSnapshot(
    args: { input: { id: string; config?: { slaId?: string | null } | null } },
    context: GraphqlContext,
  ) {
    return triggerOf(context, args.input.id, 'VSPHERE_VM', args.input.config?.slaId);
  },

  createOnDemandMssqlBackup(
    args: {
      input: {
        id: string;
        config: { baseOnDemandSnapshotConfig?: { slaId?: string | null } | null };
      };
    },
    context: GraphqlContext,
  ) {
    return triggerOf(
      context,
      args.input.id,
      'MSSQL_DATABASE',
      args.input.config.baseOnDemandSnapshotConfig?.slaId,
    );
  },

  vSphereVMAsyncRequestStatus(args: { clusterUuid: string; id: string }, context: GraphqlContext) {
    return statusOf(context, args.clusterUuid, args.id, 'VSPHERE_VM');
  },

  mssqlJobStatus(args: { input: { clusterUuid: string; id: string } }, context: GraphqlContext) {
    return statusOf(context, args.input.clusterUuid, args.input.id, 'MSSQL_DATABASE');
  },
};
