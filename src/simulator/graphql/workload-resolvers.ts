import type { SimSnapshot, SimWorkload, WorkloadType } from '../records.js';
import { triggerSnapshot } from '../routes/workload-routes.js';
import type { SnapshotRequest } from '../snapshot-jobs.js';
import { complianceOf } from '../workload-compliance.js';
import { snapshotsOfWorkload } from '../workload-snapshots.js';
import { sortedConnection, type Orderings, type SortedConnectionArgs } from './connection.js';
import {
  allOf,
  argumentError,
  asFieldErrors,
  dateTimeArgument,
  fieldError,
  given,
  refuseGiven,
  requireGrant,
  type GraphqlContext,
} from './graphql-context.js';
import { asyncRequestView, snappableView, snapshotView } from './graphql-views.js';
import { PUBLISHED_WORDS, workloadTypesNamed } from './published-words.js';
import { snapshotFilter, type SnapshotQueryFilter } from './snapshot-filter.js';

/** `SnappableFilterInput`. */
interface SnappableFilter {
  readonly awsServiceType?: readonly string[] | null;
  readonly cluster?: {
    readonly id?: readonly string[] | null;
    readonly type?: readonly string[] | null;
  } | null;
  readonly complianceStatus?: readonly string[] | null;
  readonly excludedObjectTypes?: readonly string[] | null;
  readonly isInfrastructureAlertsEnabled?: boolean | null;
  readonly isLocal?: boolean | null;
  readonly objectFid?: readonly string[] | null;
  readonly objectState?: readonly string[] | null;
  readonly objectType?: readonly string[] | null;
  readonly orgId?: readonly string[] | null;
  readonly protectionStatus?: readonly string[] | null;
  readonly searchTerm?: string | null;
  readonly slaDomain?: { readonly id?: readonly string[] | null } | null;
  readonly slaTimeRange?: string | null;
  readonly timeRange?: { readonly start: unknown; readonly end: unknown } | null;
}

/**
 * What the simulator can sort workloads by. The schema's other values are storage, archival and
 * replication figures the simulator does not keep.
 */
const SNAPPABLE_ORDERINGS: (context: GraphqlContext) => Orderings<SimWorkload> = ({ state }) => {
  const slaName = (workload: SimWorkload) =>
    workload.slaDomainId === null ? '' : (state.slaDomains.get(workload.slaDomainId)?.name ?? '');
  const counts = (workload: SimWorkload) => {
    const snapshots = snapshotsOfWorkload(state, workload);
    const onDemand = snapshots.filter((snapshot) => snapshot.isOnDemand).length;
    return { total: snapshots.length, onDemand, scheduled: snapshots.length - onDemand };
  };
  return {
    what: 'snappables',
    keys: {
      Name: (workload) => [workload.name],
      ObjectType: (workload) => [PUBLISHED_WORDS.workloadType(workload.type)],
      Cluster: (workload) => [workload.cluster.name],
      ClusterName: (workload) => [workload.cluster.name],
      ClusterType: (workload) => [workload.cluster.type],
      Location: (workload) => [workload.cluster.name],
      SlaDomainName: (workload) => [slaName(workload)],
      ProtectionStatus: (workload) => [workload.slaDomainId === null ? 'NoSla' : 'Protected'],
      ComplianceStatus: (workload) => [complianceOf(state, workload)],
      LastSnapshot: (workload) => [snapshotsOfWorkload(state, workload)[0]?.date ?? 0],
      TotalSnapshots: (workload) => [counts(workload).total],
      LocalSnapshots: (workload) => [counts(workload).total],
      LocalOnDemandSnapshots: (workload) => [counts(workload).onDemand],
      LocalSLASnapshots: (workload) => [counts(workload).scheduled],
    },
    whyNot: 'it keeps no storage, archival or replication figures',
    defaultSortBy: 'Name',
    defaultOrder: () => 'ASC',
    tieBreak: (workload) => workload.id,
    // The inventory lists workloads by name, then id.
    presorted: 'Name',
  };
};

/** The workloads `filter` keeps; what the simulator cannot filter by is a field error. */
function snappableFilter(
  context: GraphqlContext,
  filter: SnappableFilter,
): ((workload: SimWorkload) => boolean) | undefined {
  const { state } = context;
  refuseGiven('filter.awsServiceType', filter.awsServiceType, 'it has no AWS service types');
  refuseGiven(
    'filter.isInfrastructureAlertsEnabled',
    filter.isInfrastructureAlertsEnabled,
    'it raises no infrastructure alerts',
  );
  refuseGiven('filter.orgId', filter.orgId, 'it has no organizations');
  refuseGiven('filter.timeRange', filter.timeRange, 'it keeps no compliance history');
  if (filter.slaTimeRange != null && filter.slaTimeRange !== 'LAST_SNAPSHOT') {
    throw argumentError(
      'filter.slaTimeRange',
      `the simulator judges compliance by the last snapshot only (LAST_SNAPSHOT), not ${filter.slaTimeRange}`,
    );
  }
  const objectTypes = given(filter.objectType);
  const types = objectTypes === undefined ? undefined : workloadTypesNamed(objectTypes);
  const excluded = workloadTypesNamed(filter.excludedObjectTypes ?? []);
  const needle = filter.searchTerm?.toLowerCase() || undefined;
  const clusterIds = given(filter.cluster?.id);
  const clusterTypes = given(filter.cluster?.type);
  const slaDomainIds = given(filter.slaDomain?.id);
  const fids = given(filter.objectFid);
  const protection = given(filter.protectionStatus);
  const compliance = given(filter.complianceStatus);
  // Every workload is an active, local object (no relics, archived or replicated ones).
  const states = given(filter.objectState);
  const noneLocal =
    filter.isLocal === false || (states !== undefined && !states.includes('ACTIVE'));
  const checks: ((workload: SimWorkload) => boolean)[] = [];
  if (noneLocal) checks.push(() => false);
  if (types !== undefined) checks.push((workload) => types.has(workload.type));
  if (excluded.size > 0) checks.push((workload) => !excluded.has(workload.type));
  if (needle !== undefined) checks.push((workload) => workload.name.toLowerCase().includes(needle));
  if (clusterIds !== undefined) checks.push((workload) => clusterIds.includes(workload.cluster.id));
  if (clusterTypes !== undefined)
    checks.push((workload) => clusterTypes.includes(workload.cluster.type));
  if (slaDomainIds !== undefined) {
    checks.push(
      (workload) => workload.slaDomainId !== null && slaDomainIds.includes(workload.slaDomainId),
    );
  }
  if (fids !== undefined) checks.push((workload) => fids.includes(workload.id));
  if (protection !== undefined) {
    checks.push((workload) =>
      protection.includes(workload.slaDomainId === null ? 'NoSla' : 'Protected'),
    );
  }
  if (compliance !== undefined) {
    checks.push((workload) => compliance.includes(complianceOf(state, workload)));
  }
  return allOf(checks);
}

/** A workload by FID (or its cluster-local id), of the kind a mutation or query serves. */
function requireWorkload(context: GraphqlContext, id: string, type?: WorkloadType): SimWorkload {
  const fid = id.includes(':::') ? (id.split(':::').at(-1) ?? id) : id;
  const workload = context.state.inventory.workload(fid);
  if (workload === undefined) throw fieldError(404, `No object with FID ${id}`);
  if (type !== undefined && workload.type !== type) {
    throw fieldError(
      400,
      `Object ${workload.name} is a ${PUBLISHED_WORDS.workloadType(workload.type)}, not a ${PUBLISHED_WORDS.workloadType(type)}`,
    );
  }
  return workload;
}

function triggerOf(
  context: GraphqlContext,
  id: string,
  type: WorkloadType,
  slaId: string | null | undefined,
  request: SnapshotRequest,
) {
  requireGrant(context, 'TAKE_SNAPSHOT');
  const workload = requireWorkload(context, id, type);
  const job = asFieldErrors(() =>
    triggerSnapshot(context.state, workload, slaId ?? undefined, request),
  );
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

/** A workload's snapshots: newest first by default (`CREATION_TIME`, `DESC`). */
const SNAPSHOT_ORDERINGS: Orderings<SimSnapshot> = {
  what: 'snapshots',
  keys: { CREATION_TIME: (snapshot) => [snapshot.date], UNKNOWN: (snapshot) => [snapshot.date] },
  defaultSortBy: 'CREATION_TIME',
  defaultOrder: () => 'DESC',
  tieBreak: (snapshot) => snapshot.id,
  presorted: 'CREATION_TIME',
};

/** Workloads, their snapshots, on-demand snapshots and their status, from the REST routes' state. */
export const workloadResolvers = {
  snappableConnection(
    args: SortedConnectionArgs & { filter?: SnappableFilter | null },
    context: GraphqlContext,
  ) {
    requireGrant(context, 'VIEW_INVENTORY');
    const { state } = context;
    const filter = snappableFilter(context, args.filter ?? {});
    return sortedConnection(
      'snappables',
      state.inventory.workloads,
      SNAPPABLE_ORDERINGS(context),
      args,
      filter,
      (workload) => snappableView(state, workload),
    );
  },

  /**
   * `ignoreActiveWorkloadCheck` and `includeOnlySourceSnapshots` change nothing here (every
   * workload is active, every snapshot a source snapshot); the retention and location flags
   * govern fields outside the served schema.
   */
  snapshotOfASnappableConnection(
    args: SortedConnectionArgs & {
      workloadId: string;
      snapshotFilter?: readonly SnapshotQueryFilter[] | null;
      timeRange?: { readonly start: unknown; readonly end: unknown } | null;
      snapshotLocationView?: string | null;
    },
    context: GraphqlContext,
  ) {
    requireGrant(context, 'VIEW_INVENTORY');
    const { state } = context;
    const workload = requireWorkload(context, args.workloadId);
    const from = dateTimeArgument('timeRange.start', args.timeRange?.start);
    const until = dateTimeArgument('timeRange.end', args.timeRange?.end);
    const now = state.clock.now();
    // The simulator never expires a snapshot, but it can leave out those past their date.
    const expired = (snapshot: SimSnapshot) =>
      snapshot.expirationDate !== null && snapshot.expirationDate <= now;
    const checks = [
      ...(args.snapshotFilter ?? []).map((filter, index) =>
        snapshotFilter(filter, `snapshotFilter[${index}]`),
      ),
      ...(from === undefined ? [] : [(snapshot: SimSnapshot) => snapshot.date >= from]),
      ...(until === undefined ? [] : [(snapshot: SimSnapshot) => snapshot.date <= until]),
      ...(args.snapshotLocationView === 'EXCLUDE_EXPIRED' ||
      args.snapshotLocationView === 'EXCLUDE_EXPIRED_AND_TO_EXPIRE'
        ? [(snapshot: SimSnapshot) => !expired(snapshot)]
        : []),
    ];
    return sortedConnection(
      `snapshots:${workload.id}`,
      snapshotsOfWorkload(state, workload),
      SNAPSHOT_ORDERINGS,
      args,
      allOf(checks),
      (snapshot) => snapshotView(state, snapshot),
    );
  },

  vsphereOnDemandSnapshot(
    args: {
      input: { id: string; config?: { slaId?: string | null } | null; userNote?: string | null };
    },
    context: GraphqlContext,
  ) {
    const { id, config, userNote } = args.input;
    return triggerOf(context, id, 'VSPHERE_VM', config?.slaId, {
      userNote: userNote ?? null,
      forceFullSnapshot: null,
    });
  },

  createOnDemandMssqlBackup(
    args: {
      input: {
        id: string;
        config: {
          baseOnDemandSnapshotConfig?: { slaId?: string | null } | null;
          forceFullSnapshot?: boolean | null;
        };
        userNote?: string | null;
      };
    },
    context: GraphqlContext,
  ) {
    const { id, config, userNote } = args.input;
    return triggerOf(context, id, 'MSSQL_DATABASE', config.baseOnDemandSnapshotConfig?.slaId, {
      userNote: userNote ?? null,
      forceFullSnapshot: config.forceFullSnapshot ?? null,
    });
  },

  vSphereVMAsyncRequestStatus(args: { clusterUuid: string; id: string }, context: GraphqlContext) {
    return statusOf(context, args.clusterUuid, args.id, 'VSPHERE_VM');
  },

  mssqlJobStatus(args: { input: { clusterUuid: string; id: string } }, context: GraphqlContext) {
    return statusOf(context, args.input.clusterUuid, args.input.id, 'MSSQL_DATABASE');
  },
};
