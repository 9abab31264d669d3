import {
  retentionMs,
  type Frequency,
  type Retention,
  type SimSlaDomain,
  type WorkloadType,
} from '../records.js';
import { slaFilter } from '../routes/sla-domain-routes.js';
import type { SimulatorState } from '../simulator-state.js';
import {
  sortedConnection,
  type ConnectionArgs,
  type Orderings,
  type SortedConnectionArgs,
} from './connection.js';
import {
  allOf,
  argumentError,
  asFieldErrors,
  fieldError,
  refuseGiven,
  requireGrant,
  type GraphqlContext,
} from './graphql-context.js';
import {
  clusterLocalSlas,
  clusterSlaView,
  listedId,
  listedName,
  type ClusterLocalSla,
  type ListedSla,
} from './cluster-sla-domains.js';
import { slaDomainView, slaStatusView } from './graphql-views.js';
import { workloadTypesOfSlaObjectTypes } from './published-words.js';

/** `GlobalSlaFilterInput`. */
interface GlobalSlaFilter {
  readonly field?: string | null;
  readonly text?: string | null;
  readonly textList?: readonly string[] | null;
  readonly objectTypeList?: readonly string[] | null;
}

/** `BasicSnapshotScheduleInput`, in each period of `GlobalSnapshotScheduleInput`. */
interface BasicSchedule {
  readonly frequency?: number | null;
  readonly retention?: number | null;
  readonly retentionUnit?: string | null;
}

/** `CreateGlobalSlaInput`: what the simulator keeps of it (the rest is accepted and filled). */
interface CreateGlobalSlaInput {
  readonly name?: string | null;
  readonly description?: string | null;
  readonly objectTypes?: readonly string[] | null;
  readonly snapshotSchedule?: Readonly<
    Record<string, { readonly basicSchedule?: BasicSchedule | null } | null | undefined>
  > | null;
}

/** The schedule periods the simulator keeps, shortest first, as its frequency units. */
const PERIODS: readonly [string, Frequency['unit']][] = [
  ['hourly', 'HOURLY'],
  ['daily', 'DAILY'],
  ['weekly', 'WEEKLY'],
  ['monthly', 'MONTHLY'],
];

/** A retention in the simulator's units (days at least; quarters as months). */
function retentionOf(schedule: BasicSchedule, at: string): Retention {
  const amount = schedule.retention ?? 0;
  if (amount <= 0) throw argumentError(`${at}.retention`, 'must be a positive number');
  switch (schedule.retentionUnit ?? 'DAYS') {
    case 'MINUTES':
    case 'HOURS':
      return { unit: 'DAYS', duration: 1 };
    case 'QUARTERS':
      return { unit: 'MONTHS', duration: 3 * amount };
    case 'WEEKS':
      return { unit: 'WEEKS', duration: amount };
    case 'MONTHS':
      return { unit: 'MONTHS', duration: amount };
    case 'YEARS':
      return { unit: 'YEARS', duration: amount };
    default:
      return { unit: 'DAYS', duration: amount };
  }
}

/** `SlaStatusFilterInput`. */
interface SlaStatusFilter {
  readonly field?: string | null;
  readonly text?: string | null;
}

type DomainCheck = (item: ListedSla) => boolean;

/**
 * One entry of `slaDomains(filter:)`; `at` names it in errors (`filter[0]`). Entries are ANDed;
 * the texts of one entry (`text` and `textList`) are ORed.
 */
function globalSlaFilter(state: SimulatorState, filter: GlobalSlaFilter, at: string): DomainCheck {
  const { field } = filter;
  if (field == null) throw argumentError(`${at}.field`, 'name the field to filter by');
  const texts = [...(filter.text == null ? [] : [filter.text]), ...(filter.textList ?? [])];
  if (field === 'OBJECT_TYPE') {
    // Values of SlaObjectType, in either list; one the simulator has no workloads of selects none.
    const types = workloadTypesOfSlaObjectTypes([...texts, ...(filter.objectTypeList ?? [])]);
    if (texts.length === 0 && (filter.objectTypeList ?? []).length === 0) {
      throw argumentError(`${at}.objectTypeList`, 'OBJECT_TYPE takes SLA object types');
    }
    // A cluster-local SLA Domain of the simulator protects VMs and databases.
    return (item) =>
      (item.global?.objectTypes ?? LOCAL_OBJECT_TYPES).some((type) => types.has(type));
  }
  refuseGiven(
    `${at}.objectTypeList`,
    filter.objectTypeList,
    'only OBJECT_TYPE takes objectTypeList',
  );
  if (!['NAME', 'NAME_EXACT_MATCH', 'CLUSTER_UUID', 'SHOW_PAUSED_SLAS_ONLY'].includes(field)) {
    throw argumentError(
      `${at}.field`,
      `the simulator cannot filter SLA Domains by ${field} (it has no archival, HA, organization or upgrade SLA Domains); it filters by NAME, NAME_EXACT_MATCH, CLUSTER_UUID, OBJECT_TYPE, SHOW_PAUSED_SLAS_ONLY`,
    );
  }
  if (texts.length === 0) throw argumentError(`${at}.text`, `${field} takes a text`);
  const checks = texts.map((text) => asFieldErrors(() => slaFilter(state, field, text)));
  const localChecks = texts.map((text) => localSlaFilter(field, text));
  // SHOW_PAUSED_SLAS_ONLY false keeps every SLA Domain (no check).
  return (item) =>
    item.global !== undefined
      ? checks.some((check) => check === undefined || check(item.global))
      : localChecks.some((check) => check(item.local));
}

/** What a cluster-local SLA Domain protects, for OBJECT_TYPE filters. */
const LOCAL_OBJECT_TYPES: readonly WorkloadType[] = ['VSPHERE_VM', 'MSSQL_DATABASE'];

/** The same filters over a cluster-local SLA Domain (never paused). */
function localSlaFilter(field: string, text: string): (local: ClusterLocalSla) => boolean {
  switch (field) {
    case 'NAME':
      return (local) => local.name.toLowerCase().includes(text.toLowerCase());
    case 'NAME_EXACT_MATCH':
      return (local) => local.name === text;
    case 'CLUSTER_UUID':
      return (local) => local.cluster.id === text;
    default:
      // SHOW_PAUSED_SLAS_ONLY: "true" keeps paused ones only, which a local one never is.
      return () => text !== 'true';
  }
}

/**
 * What `slaDomains` sorts by: name by default, default SLA Domains (there are none) first. A
 * cluster-local SLA Domain is never paused, protects nothing, and keeps its retention on its
 * cluster (0 here).
 */
const SLA_ORDERINGS: (state: SimulatorState) => Orderings<ListedSla> = (state) => ({
  what: 'SLA Domains',
  keys: {
    NAME: (item) => [listedName(item)],
    IS_DEFAULT: (item) => [0, listedName(item)],
    PAUSED_CLUSTER_COUNT: ({ global }) => [
      global === undefined
        ? 0
        : global.clusterIds.filter((id) => state.slaDomains.pauseStatus(global, id) === 'PAUSED')
            .length,
      global?.name ?? '',
    ],
    PROTECTED_OBJECT_COUNT: (item) => [item.global?.protectedWorkloadCount ?? 0, listedName(item)],
    RETENTION: (item) => [
      item.global === undefined ? 0 : retentionMs(item.global.retention),
      listedName(item),
    ],
  },
  defaultSortBy: 'NAME',
  defaultOrder: () => 'ASC',
  tieBreak: listedId,
});

function requireDomain(context: GraphqlContext, id: string): SimSlaDomain {
  const domain = context.state.slaDomains.get(id);
  if (domain === undefined) throw fieldError(404, `No SLA Domain ${id}`);
  return domain;
}

/** One entry of `globalSlaStatuses(filter:)`: a cluster's name, UUID or pause state. */
function slaStatusFilter(
  state: SimulatorState,
  domain: SimSlaDomain,
  filter: SlaStatusFilter,
  at: string,
): (clusterId: string) => boolean {
  const { field, text } = filter;
  if (field == null) throw argumentError(`${at}.field`, 'name the field to filter by');
  if (text == null) throw argumentError(`${at}.text`, `${field} takes a text`);
  switch (field) {
    case 'CLUSTER_NAME': {
      const needle = text.toLowerCase();
      return (clusterId) =>
        (state.inventory.cluster(clusterId)?.name.toLowerCase() ?? '').includes(needle);
    }
    case 'CLUSTER_UUID':
      return (clusterId) => clusterId === text;
    case 'PAUSE_STATUS':
      if (!['PAUSED', 'NOT_PAUSED', 'UNKNOWN'].includes(text)) {
        throw argumentError(
          `${at}.text`,
          `PAUSE_STATUS takes PAUSED, NOT_PAUSED or UNKNOWN, not ${JSON.stringify(text)}`,
        );
      }
      return (clusterId) => state.slaDomains.pauseStatus(domain, clusterId) === text;
    default:
      throw argumentError(`${at}.field`, `unknown field ${field}`);
  }
}

/**
 * SLA Domains: list, get, per-cluster pause state (with who paused it, when and why), pause and
 * resume. `shouldShowSyncStatus` and `shouldShowUpgradeInfo` govern fields outside the served
 * schema: they change nothing here.
 */
export const slaResolvers = {
  slaDomains(
    args: SortedConnectionArgs & {
      filter?: readonly GlobalSlaFilter[] | null;
      contextFilter?: string | null;
      contextFilterInput?: readonly unknown[] | null;
      shouldShowProtectedObjectCount?: boolean | null;
      shouldShowPausedClusters?: boolean | null;
      showRemoteSlas?: boolean | null;
    },
    context: GraphqlContext,
  ) {
    requireGrant(context, 'VIEW_INVENTORY');
    const { state } = context;
    if (args.contextFilter != null && args.contextFilter !== 'DEFAULT') {
      throw argumentError(
        'contextFilter',
        `the simulator has no application failover (${args.contextFilter}); give DEFAULT or nothing`,
      );
    }
    refuseGiven('contextFilterInput', args.contextFilterInput, 'it has no filter contexts');
    // `showRemoteSlas` changes nothing: the simulator has no SLA Domains of other accounts.
    const checks = (args.filter ?? []).map((filter, index) =>
      globalSlaFilter(state, filter, `filter[${index}]`),
    );
    const detail = {
      pausedClusters: args.shouldShowPausedClusters === true,
      protectedObjectCount: args.shouldShowProtectedObjectCount === true,
    };
    const listed: ListedSla[] = [
      ...state.slaDomains.list().map((global) => ({ global })),
      ...clusterLocalSlas(state).map((local) => ({ local })),
    ];
    return sortedConnection(
      'sla-domains',
      listed,
      SLA_ORDERINGS(state),
      args,
      allOf(checks),
      (item) =>
        item.global !== undefined
          ? slaDomainView(state, item.global, detail)
          : clusterSlaView(item.local),
    );
  },

  slaDomain(
    args: { id: string; shouldShowPausedClusters?: boolean | null },
    context: GraphqlContext,
  ) {
    requireGrant(context, 'VIEW_INVENTORY');
    const local = clusterLocalSlas(context.state).find((one) => one.id === args.id);
    if (local !== undefined) return clusterSlaView(local);
    return slaDomainView(context.state, requireDomain(context, args.id), {
      pausedClusters: args.shouldShowPausedClusters === true,
      protectedObjectCount: true,
    });
  },

  globalSlaStatuses(
    args: ConnectionArgs & { SlaId: string; filter?: readonly SlaStatusFilter[] | null },
    context: GraphqlContext,
  ) {
    requireGrant(context, 'VIEW_INVENTORY');
    const { state } = context;
    const domain = requireDomain(context, args.SlaId);
    const checks = (args.filter ?? []).map((filter, index) =>
      slaStatusFilter(state, domain, filter, `filter[${index}]`),
    );
    const clusterName = (clusterId: string) => state.inventory.cluster(clusterId)?.name ?? '';
    // The schema gives statuses no sortBy: by cluster name.
    const byClusterName: Orderings<string> = {
      what: 'SLA Domain statuses',
      keys: { CLUSTER_NAME: (clusterId) => [clusterName(clusterId)] },
      defaultSortBy: 'CLUSTER_NAME',
      defaultOrder: () => 'ASC',
      tieBreak: (clusterId) => clusterId,
    };
    return sortedConnection(
      `sla-statuses:${domain.id}`,
      domain.clusterIds,
      byClusterName,
      args,
      allOf(checks),
      (clusterId) => slaStatusView(state, domain, clusterId),
    );
  },

  /**
   * A global SLA Domain, on every cluster, from the first period of its schedule the simulator
   * keeps (hourly, daily, weekly, monthly): its frequency and retention. Object types the
   * simulator has no workloads of are accepted and not kept.
   */
  createGlobalSla(args: { input: CreateGlobalSlaInput }, context: GraphqlContext) {
    requireGrant(context, 'MANAGE_SLA');
    const { state } = context;
    const { input } = args;
    const name = input.name?.trim() ?? '';
    if (name === '') throw argumentError('input.name', 'name the SLA Domain');
    const period = PERIODS.find(([key]) => input.snapshotSchedule?.[key]?.basicSchedule != null);
    if (period === undefined) {
      throw argumentError(
        'input.snapshotSchedule',
        'give a basicSchedule for hourly, daily, weekly or monthly snapshots',
      );
    }
    const [key, unit] = period;
    const schedule = input.snapshotSchedule?.[key]?.basicSchedule ?? {};
    const domain = asFieldErrors(() =>
      state.slaDomains.create({
        name,
        description: input.description ?? '',
        objectTypes: [...workloadTypesOfSlaObjectTypes(input.objectTypes ?? [])],
        frequency: { unit, interval: Math.max(1, schedule.frequency ?? 1) },
        retention: retentionOf(schedule, `input.snapshotSchedule.${key}.basicSchedule`),
      }),
    );
    return slaDomainView(state, domain, { pausedClusters: false, protectedObjectCount: true });
  },

  pauseSla(
    args: { input: { slaId: string; clusterUuids: readonly string[]; pauseSla: boolean } },
    context: GraphqlContext,
  ) {
    requireGrant(context, 'MANAGE_SLA');
    const { state, principal } = context;
    const { slaId, clusterUuids, pauseSla } = args.input;
    requireDomain(context, slaId);
    if (clusterUuids.length === 0) {
      throw argumentError('input.clusterUuids', 'name at least one cluster of the SLA Domain');
    }
    asFieldErrors(() =>
      pauseSla
        ? state.slaDomains.pause(slaId, clusterUuids, {
            pausedBy: state.accounts.nameOf(principal),
            note: '',
          })
        : state.slaDomains.resume(slaId, clusterUuids),
    );
    return { success: true };
  },
};
