import type { SimSlaDomain } from '../records.js';
import { slaFilter } from '../routes/sla-domain-routes.js';
import { SimVocabulary } from '../sim-vocabulary.js';
import { connection } from './connection.js';
import { asFieldErrors, fieldError, requireGrant, type GraphqlContext } from './graphql-context.js';

const SCHEMA_WORDS = new SimVocabulary('graphql');

interface GlobalSlaFilter {
  readonly field: string;
  readonly text?: string | null;
  readonly objectTypeList?: readonly string[] | null;
}

function slaView(domain: SimSlaDomain) {
  return {
    // The interface's implementation, for graphql-js to resolve `SlaDomain`.
    __typename: 'GlobalSlaReply',
    id: domain.id,
    name: domain.name,
    description: domain.description,
    objectTypes: SCHEMA_WORDS.slaObjectTypes(domain.objectTypes),
    protectedObjectCount: domain.protectedWorkloadCount,
  };
}

function requireDomain(context: GraphqlContext, id: string): SimSlaDomain {
  const domain = context.state.slaDomains.get(id);
  if (domain === undefined) throw fieldError(404, `No SLA Domain ${id}`);
  return domain;
}

/** SLA Domains: list, get, per-cluster pause state, pause and resume. */
export const slaResolvers = {
  slaDomains(
    args: {
      first?: number | null;
      after?: string | null;
      filter?: readonly GlobalSlaFilter[] | null;
    },
    context: GraphqlContext,
  ) {
    requireGrant(context, 'VIEW_INVENTORY');
    const { state } = context;
    // Filters are ANDed; OBJECT_TYPE takes the schema's SLA object types in objectTypeList.
    const filters = (args.filter ?? []).map((filter) => {
      const list = filter.objectTypeList ?? [];
      if (filter.field === 'OBJECT_TYPE' && filter.text == null && list.length > 0) {
        const each = list.map((word) => asFieldErrors(() => slaFilter(state, 'OBJECT_TYPE', word)));
        return (domain: SimSlaDomain) => each.some((matches) => matches?.(domain) === true);
      }
      return asFieldErrors(() => slaFilter(state, filter.field, filter.text ?? undefined));
    });
    const domains = state.slaDomains.list();
    return connection(
      {
        list: 'sla-domains',
        length: domains.length,
        at: (index) => domains[index] as SimSlaDomain,
        keyOf: (domain) => [domain.name, domain.id],
        filter:
          filters.length === 0
            ? undefined
            : (domain) => filters.every((filter) => filter === undefined || filter(domain)),
        first: args.first,
        after: args.after,
      },
      slaView,
    );
  },

  slaDomain(args: { id: string }, context: GraphqlContext) {
    requireGrant(context, 'VIEW_INVENTORY');
    return slaView(requireDomain(context, args.id));
  },

  globalSlaStatuses(
    args: { SlaId: string; first?: number | null; after?: string | null },
    context: GraphqlContext,
  ) {
    requireGrant(context, 'VIEW_INVENTORY');
    const { state } = context;
    const domain = requireDomain(context, args.SlaId);
    const clusterIds = domain.clusterIds;
    return connection(
      {
        list: `sla-statuses:${domain.id}`,
        length: clusterIds.length,
        at: (index) => clusterIds[index] as string,
        keyOf: (clusterId) => [clusterId],
        first: args.first,
        after: args.after,
      },
      (clusterId) => ({
        cluster: { id: clusterId, name: state.inventory.cluster(clusterId)?.name ?? clusterId },
        pauseStatus: state.slaDomains.pauseStatus(domain, clusterId),
        pausedSlaInfo: null,
      }),
    );
  },

  pauseSla(
    args: { input: { slaId: string; clusterUuids: readonly string[]; pauseSla: boolean } },
    context: GraphqlContext,
  ) {
    requireGrant(context, 'MANAGE_SLA');
    const { slaId, clusterUuids, pauseSla } = args.input;
    requireDomain(context, slaId);
    if (clusterUuids.length === 0) {
      throw fieldError(400, 'clusterUuids must name at least one cluster of the SLA Domain');
    }
    const { state, principal } = context;
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
