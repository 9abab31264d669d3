import { retentionMs, type SimSlaDomain } from '../records.js';
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
import { slaDomainView, slaStatusView } from './graphql-views.js';
import { workloadTypesOfSlaObjectTypes } from './published-words.js';

/** `GlobalSlaFilterInput`. */
interface GlobalSlaFilter {
  readonly field?: string | null;
  readonly text?: string | null;
  readonly textList?: readonly string[] | null;
  readonly objectTypeList?: readonly string[] | null;
}

/** `SlaStatusFilterInput`. */
interface SlaStatusFilter {
  readonly field?: string | null;
  readonly text?: string | null;
}

type DomainCheck = (domain: SimSlaDomain) => boolean;

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
    return (domain) => domain.objectTypes.some((type) => types.has(type));
  }
  refuseGiven(
    `${at}.objectTypeList`,
    filter.objectTypeList,
    'only OBJECT_TYPE takes objectTypeList',
  );
  if (!['NAME', 'NAME_EXACT_MATCH', 'CLUSTER_UUID', 'SHOW_PAUSED_SLAS_ONLY'].includes(field)) {
    throw argumentError(
      `${at}.field`,
      `the simulator cannot filter SLA Domains by ${field} (it has no archival, HA, organization, upgrade or cluster-local SLA Domains); it filters by NAME, NAME_EXACT_MATCH, CLUSTER_UUID, OBJECT_TYPE, SHOW_PAUSED_SLAS_ONLY`,
    );
  }
  if (texts.length === 0) throw argumentError(`${at}.text`, `${field} takes a text`);
  const checks = texts.map((text) => asFieldErrors(() => slaFilter(state, field, text)));
  // SHOW_PAUSED_SLAS_ONLY false keeps every SLA Domain (no check).
  return (domain) => checks.some((check) => check === undefined || check(domain));
}

/** What `slaDomains` sorts by: name by default, default SLA Domains (there are none) first. */
const SLA_ORDERINGS: (state: SimulatorState) => Orderings<SimSlaDomain> = (state) => ({
  what: 'SLA Domains',
  keys: {
    NAME: (domain) => [domain.name],
    IS_DEFAULT: (domain) => [0, domain.name],
    PAUSED_CLUSTER_COUNT: (domain) => [
      domain.clusterIds.filter((id) => state.slaDomains.pauseStatus(domain, id) === 'PAUSED')
        .length,
      domain.name,
    ],
    PROTECTED_OBJECT_COUNT: (domain) => [domain.protectedWorkloadCount, domain.name],
    RETENTION: (domain) => [retentionMs(domain.retention), domain.name],
  },
  defaultSortBy: 'NAME',
  defaultOrder: () => 'ASC',
  tieBreak: (domain) => domain.id,
  // The store lists SLA Domains by name, then id.
  presorted: 'NAME',
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
    return sortedConnection(
      'sla-domains',
      state.slaDomains.list(),
      SLA_ORDERINGS(state),
      args,
      allOf(checks),
      (domain) => slaDomainView(state, domain, detail),
    );
  },

  slaDomain(
    args: { id: string; shouldShowPausedClusters?: boolean | null },
    context: GraphqlContext,
  ) {
    requireGrant(context, 'VIEW_INVENTORY');
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
