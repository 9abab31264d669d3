import type { SimSnapshot, SimWorkload, WorkloadType } from '../records.js';
import { snapshotsOfWorkload } from '../workload-snapshots.js';
import { sortedConnection, type Orderings, type SortedConnectionArgs } from './connection.js';
import {
  allOf,
  argumentError,
  asFieldErrors,
  dateTimeArgument,
  fieldError,
  given,
  requireGrant,
  type GraphqlContext,
} from './graphql-context.js';
import { slaDomainOf, snappableView, snapshotView } from './graphql-views.js';
import type { SimulatorState } from '../simulator-state.js';

/**
 * The hierarchy roots users list their VMs and databases with (`vSphereVmNewConnection`,
 * `vSphereVmNew`, `mssqlDatabases`, `mssqlDatabase`) and `assignSla`, over the same workloads
 * as `snappableConnection`: a workload's `id` here is its `fid` there, with the same name,
 * cluster, SLA Domain and snapshots, and a protection change made through any root (or REST)
 * reads back through all of them. Fields the world does not model are filled
 * (filled-fields.ts).
 */

/** `HierarchyObjectTypeEnum` of the two kinds these roots serve. */
const HIERARCHY_TYPES: Partial<Record<WorkloadType, string>> = {
  VSPHERE_VM: 'VmwareVirtualMachine',
  MSSQL_DATABASE: 'Mssql',
};

/** What `effectiveSlaDomain` (non-null) answers for a workload no SLA Domain protects. */
const UNPROTECTED = { __typename: 'GlobalSlaReply', id: 'UNPROTECTED', name: 'UNPROTECTED' };

/** `Filter.field` values these roots apply; the schema's others are a 400 naming them. */
type FilterCheck = (workload: SimWorkload, texts: readonly string[]) => boolean;
const FILTERS: Readonly<Record<string, FilterCheck>> = {
  NAME: (workload, texts) =>
    texts.some((text) => workload.name.toLowerCase().includes(text.toLowerCase())),
  NAME_EXACT_MATCH: (workload, texts) => texts.includes(workload.name),
  NAME_PREFIX: (workload, texts) =>
    texts.some((text) => workload.name.toLowerCase().startsWith(text.toLowerCase())),
  OBJECT_ID: (workload, texts) => texts.includes(workload.id),
  CLUSTER_ID: (workload, texts) => texts.includes(workload.cluster.id),
  EFFECTIVE_SLA: (workload, texts) => texts.includes(workload.slaDomainId ?? 'UNPROTECTED'),
  // Every workload of the simulator is live: not a relic, a replica or a ghost.
  IS_RELIC: (_workload, texts) => texts.includes('false'),
  IS_REPLICATED: (_workload, texts) => texts.includes('false'),
  IS_GHOST: (_workload, texts) => texts.includes('false'),
  IS_ACTIVE: (_workload, texts) => texts.includes('true'),
};

interface HierarchyFilter {
  readonly field?: string | null;
  readonly texts?: readonly string[] | null;
  readonly isNegative?: boolean | null;
}

function hierarchyFilter(
  filters: readonly HierarchyFilter[],
): ((workload: SimWorkload) => boolean) | undefined {
  const checks = filters.map((filter, index) => {
    const at = `filter[${index}]`;
    if (filter.field == null) throw argumentError(`${at}.field`, 'name the field to filter by');
    const check = FILTERS[filter.field];
    if (check === undefined) {
      throw argumentError(
        `${at}.field`,
        `the simulator cannot filter VMs and databases by ${filter.field}; it filters by ${Object.keys(FILTERS).join(', ')}`,
      );
    }
    const texts = filter.texts ?? [];
    const negative = filter.isNegative === true;
    return (workload: SimWorkload) => check(workload, texts) !== negative;
  });
  return allOf(checks);
}

const HIERARCHY_ORDERINGS: (state: SimulatorState) => Orderings<SimWorkload> = (state) => ({
  what: 'VMs and databases',
  keys: {
    NAME: (workload) => [workload.name],
    EFFECTIVE_SLA_DOMAIN: (workload) => [
      workload.slaDomainId === null ? '' : (state.slaDomains.get(workload.slaDomainId)?.name ?? ''),
    ],
    ASSIGNED_SLA_DOMAIN: (workload) => [
      workload.slaDomainId === null ? '' : (state.slaDomains.get(workload.slaDomainId)?.name ?? ''),
    ],
  },
  whyNot: 'it keeps names and SLA Domains, not the other figures',
  defaultSortBy: 'NAME',
  defaultOrder: () => 'ASC',
  tieBreak: (workload) => workload.id,
  // The inventory lists workloads by name, then id.
  presorted: 'NAME',
});

/** `CdmSnapshotSortByEnum`: by date (newest first by default), or by id. */
const SNAPSHOT_ORDERINGS: Orderings<SimSnapshot> = {
  what: 'snapshots',
  keys: {
    Date: (snapshot) => [snapshot.date],
    SnapshotId: (snapshot) => [snapshot.id],
    SnappableId: (snapshot) => [snapshot.workloadId],
  },
  defaultSortBy: 'Date',
  defaultOrder: () => 'DESC',
  tieBreak: (snapshot) => snapshot.id,
  presorted: 'Date',
};

interface CdmSnapshotFilter {
  readonly isOnDemandSnapshot?: boolean | null;
  readonly snapshotId?: readonly string[] | null;
  readonly timeRange?: { readonly start: unknown; readonly end: unknown } | null;
}

/** A VM or a database as the hierarchy roots answer it (`VsphereVm`, `MssqlDatabase`). */
function hierarchyObjectView(state: SimulatorState, workload: SimWorkload) {
  const snappable = snappableView(state, workload);
  const snapshots = () => snapshotsOfWorkload(state, workload);
  const sla = () => slaDomainOf(state, workload.slaDomainId) ?? UNPROTECTED;
  const edge = (pick: (list: readonly SimSnapshot[]) => SimSnapshot | undefined) => () => {
    const snapshot = pick(snapshots());
    return snapshot === undefined ? null : snapshotView(state, snapshot);
  };
  return {
    id: workload.id,
    cdmId: snappable.id,
    name: workload.name,
    objectType: HIERARCHY_TYPES[workload.type] ?? snappable.objectType,
    cluster: snappable.cluster,
    effectiveSlaDomain: sla,
    configuredSlaDomain: sla,
    effectiveRetentionSlaDomain: () => slaDomainOf(state, workload.slaDomainId),
    pendingSla: null,
    slaAssignment: workload.slaDomainId === null ? 'Unassigned' : 'Direct',
    slaPauseStatus: false,
    isRelic: false,
    isReplica: false,
    isActive: true,
    isOnline: true,
    reportWorkload: snappable,
    onDemandSnapshotCount: () => snapshots().filter((snapshot) => snapshot.isOnDemand).length,
    // Snapshots are kept newest first.
    newestSnapshot: edge((list) => list[0]),
    oldestSnapshot: edge((list) => list.at(-1)),
    snapshotConnection: (args: SortedConnectionArgs & { filter?: CdmSnapshotFilter | null }) => {
      const filter = args.filter ?? {};
      const from = dateTimeArgument('filter.timeRange.start', filter.timeRange?.start);
      const until = dateTimeArgument('filter.timeRange.end', filter.timeRange?.end);
      const ids = given(filter.snapshotId);
      const checks: ((snapshot: SimSnapshot) => boolean)[] = [];
      if (filter.isOnDemandSnapshot != null) {
        checks.push((snapshot) => snapshot.isOnDemand === filter.isOnDemandSnapshot);
      }
      if (ids !== undefined) checks.push((snapshot) => ids.includes(snapshot.id));
      if (from !== undefined) checks.push((snapshot) => snapshot.date >= from);
      if (until !== undefined) checks.push((snapshot) => snapshot.date <= until);
      return sortedConnection(
        `cdm-snapshots:${workload.id}`,
        snapshots(),
        SNAPSHOT_ORDERINGS,
        args,
        allOf(checks),
        (snapshot) => snapshotView(state, snapshot),
      );
    },
  };
}

function listOf(
  type: WorkloadType,
  args: SortedConnectionArgs & { filter?: readonly HierarchyFilter[] | null },
  context: GraphqlContext,
) {
  requireGrant(context, 'VIEW_INVENTORY');
  const { state } = context;
  const filter = hierarchyFilter(args.filter ?? []);
  return sortedConnection(
    `hierarchy:${type}`,
    state.inventory.workloads.filter((workload) => workload.type === type),
    HIERARCHY_ORDERINGS(state),
    args,
    filter,
    (workload) => hierarchyObjectView(state, workload),
  );
}

function oneOf(type: WorkloadType, fid: string, context: GraphqlContext) {
  requireGrant(context, 'VIEW_INVENTORY');
  const workload = context.state.inventory.workload(fid);
  if (workload?.type !== type) {
    throw fieldError(
      404,
      'Unable to find managed object for ID or you are not authorized to access it',
    );
  }
  return hierarchyObjectView(context.state, workload);
}

/** `AssignSlaInput`. */
interface AssignSlaInput {
  readonly objectIds: readonly string[];
  readonly slaDomainAssignType: string;
  readonly slaOptionalId?: string | null;
}

export const hierarchyResolvers = {
  vSphereVmNewConnection(
    args: SortedConnectionArgs & { filter?: readonly HierarchyFilter[] | null },
    context: GraphqlContext,
  ) {
    return listOf('VSPHERE_VM', args, context);
  },

  vSphereVmNew(args: { fid: string }, context: GraphqlContext) {
    return oneOf('VSPHERE_VM', args.fid, context);
  },

  mssqlDatabases(
    args: SortedConnectionArgs & { filter?: readonly HierarchyFilter[] | null },
    context: GraphqlContext,
  ) {
    return listOf('MSSQL_DATABASE', args, context);
  },

  mssqlDatabase(args: { fid: string }, context: GraphqlContext) {
    return oneOf('MSSQL_DATABASE', args.fid, context);
  },

  /**
   * Protects the objects with an SLA Domain (`protectWithSlaId`), or removes their protection
   * (`doNotProtect`, and `noAssignment`: the simulator has no inherited protection to fall back
   * to). Everything is checked first: an unknown object or SLA Domain changes nothing.
   */
  assignSla(args: { input: AssignSlaInput }, context: GraphqlContext) {
    requireGrant(context, 'MANAGE_SLA');
    const { state } = context;
    const { objectIds, slaDomainAssignType, slaOptionalId } = args.input;
    const workloads = objectIds.map((id) => {
      const workload = state.inventory.workload(id);
      if (workload === undefined) {
        throw fieldError(
          404,
          `Unable to find managed object ${id} or you are not authorized to access it`,
        );
      }
      return workload;
    });
    if (slaDomainAssignType === 'protectWithSlaId') {
      if (slaOptionalId == null) {
        throw argumentError(
          'input.slaOptionalId',
          'protectWithSlaId takes the SLA Domain to protect with',
        );
      }
      const domain = state.slaDomains.get(slaOptionalId);
      if (domain === undefined) throw fieldError(404, `No SLA Domain ${slaOptionalId}`);
      asFieldErrors(() =>
        state.slaDomains.assign(
          domain.id,
          workloads.map((workload) => workload.id),
        ),
      );
    } else {
      for (const workload of workloads) state.slaDomains.setProtection(workload, null);
    }
    return { success: true };
  },
};
