import type { SlaDomainOperations } from '../api/platform-api.js';
import { NotFoundError, UnavailableError } from '../http/platform-errors.js';
import type { Paginated } from '../pagination/paginated.js';
import type { SlaDomain, SlaDomainCluster, SlaDomainFilter } from '../records/sla-domain.js';
import type { GraphqlClient } from './graphql-client.js';
import { UnusableRow, isUuid, paginateConnection } from './paginate-connection.js';
import {
  getSlaDomain,
  listSlaDomains,
  pauseSla,
  slaPauseStatuses,
  type GraphqlSlaDomain,
} from './sla-operations.js';

/**
 * SLA Domains through GraphQL. A listing says each domain's paused clusters in the same call
 * (`pausedClustersInfo`); `get` reads every cluster's pause state, with who paused it and why
 * (`globalSlaStatuses`). `pauseSla` takes the clusters by name, so pausing "all of its
 * clusters" reads them first, and every pause or resume reads the state back.
 */
export class GraphqlSlaDomains implements SlaDomainOperations {
  constructor(
    private readonly graphql: GraphqlClient,
    private readonly pageSize: number,
  ) {}

  list(filter: SlaDomainFilter = {}, signal?: AbortSignal): Paginated<SlaDomain> {
    return paginateConnection({
      graphql: this.graphql,
      document: listSlaDomains,
      variables:
        filter.filterField === undefined
          ? {}
          : { filter: [{ field: filter.filterField, text: filter.filterText ?? '' }] },
      pageSize: this.pageSize,
      connection: (data) => data.slaDomains,
      map: (node) => toSlaDomain(node, undefined),
      signal,
    });
  }

  async get(slaDomainId: string, signal?: AbortSignal): Promise<SlaDomain> {
    if (!isUuid(slaDomainId)) {
      throw new NotFoundError({
        operation: 'slaDomain',
        code: 'NOT_FOUND',
        message: `no SLA Domain has the id ${slaDomainId}`,
        mayHaveTakenEffect: false,
      });
    }
    const data = await this.graphql.request(getSlaDomain, { id: slaDomainId }, signal);
    return toSlaDomain(data.slaDomain, await this.clusters(slaDomainId, signal));
  }

  pause(
    slaDomainId: string,
    clusterIds?: readonly string[],
    signal?: AbortSignal,
  ): Promise<SlaDomain> {
    return this.setPaused(slaDomainId, true, clusterIds, signal);
  }

  resume(
    slaDomainId: string,
    clusterIds?: readonly string[],
    signal?: AbortSignal,
  ): Promise<SlaDomain> {
    return this.setPaused(slaDomainId, false, clusterIds, signal);
  }

  private async setPaused(
    slaDomainId: string,
    paused: boolean,
    clusterIds: readonly string[] | undefined,
    signal: AbortSignal | undefined,
  ): Promise<SlaDomain> {
    const clusterUuids =
      clusterIds ?? (await this.clusters(slaDomainId, signal)).map((cluster) => cluster.clusterId);
    const data = await this.graphql.request(
      pauseSla,
      { input: { slaId: slaDomainId, clusterUuids: [...clusterUuids], pauseSla: paused } },
      signal,
    );
    if (!data.pauseSla.success) {
      throw new UnavailableError({
        operation: 'pauseSla',
        code: 'NOT_APPLIED',
        message: `the platform answered success: false to ${paused ? 'pausing' : 'resuming'} SLA Domain ${slaDomainId}`,
        mayHaveTakenEffect: true,
      });
    }
    return this.get(slaDomainId, signal);
  }

  /** Every cluster of a domain with its pause state; a row without a cluster is skipped. */
  private async clusters(
    slaDomainId: string,
    signal: AbortSignal | undefined,
  ): Promise<SlaDomainCluster[]> {
    return paginateConnection({
      graphql: this.graphql,
      document: slaPauseStatuses,
      variables: { slaId: slaDomainId },
      pageSize: this.pageSize,
      connection: (data) => data.globalSlaStatuses,
      map: (status) =>
        status.cluster === null
          ? new UnusableRow('names no cluster, so paw cannot pause or resume it there')
          : {
              clusterId: status.cluster.id,
              clusterName: status.cluster.name,
              pauseStatus: status.pauseStatus,
              pause:
                status.pausedSlaInfo === null
                  ? undefined
                  : {
                      pausedBy: status.pausedSlaInfo.pausedBy,
                      note: status.pausedSlaInfo.pauseNote,
                      since: status.pausedSlaInfo.pauseStartDate ?? undefined,
                    },
            },
      signal,
    }).toArray();
  }
}

/**
 * paw's record of a domain, global or cluster-local: every cluster when read, else the paused
 * ones the listing named. A field the platform withheld (optional-fields.ts) comes null.
 */
function toSlaDomain(
  domain: GraphqlSlaDomain,
  clusters: readonly SlaDomainCluster[] | undefined,
): SlaDomain {
  const global = domain.__typename === 'GlobalSlaReply' ? domain : undefined;
  const local = domain.__typename === 'ClusterSlaDomain' ? domain : undefined;
  return {
    id: domain.id,
    name: domain.name,
    description: global?.description,
    objectTypes: global?.objectTypes,
    protectedWorkloadCount: (global ?? local)?.protectedObjectCount,
    localTo:
      local?.cluster == null
        ? undefined
        : { clusterId: local.cluster.id, clusterName: local.cluster.name },
    clusters,
    pausedClusters:
      global?.pausedClustersInfo == null
        ? undefined
        : (global.pausedClustersInfo.pausedClusters ?? []).map((cluster) => ({
            clusterId: cluster.id,
            clusterName: cluster.name,
            pauseStatus: 'PAUSED',
          })),
  };
}
