import type { SlaDomainOperations } from '../api/platform-api.js';
import { NotFoundError, UnavailableError } from '../http/platform-errors.js';
import type { Paginated } from '../pagination/paginated.js';
import type { SlaDomain, SlaDomainCluster, SlaDomainFilter } from '../records/sla-domain.js';
import type { GraphqlClient } from './graphql-client.js';
import { isUuid, paginateConnection } from './paginate-connection.js';
import {
  getSlaDomain,
  listSlaDomains,
  pauseSla,
  slaPauseStatuses,
  type GraphqlSlaDomain,
} from './sla-operations.js';

/**
 * SLA Domains through GraphQL. Pause state is per cluster (`globalSlaStatuses`); `pauseSla`
 * takes the clusters by name, so pausing "all of its clusters" reads them first, and every
 * pause or resume reads the state back.
 */
export class GraphqlSlaDomains implements SlaDomainOperations {
  constructor(
    private readonly graphql: GraphqlClient,
    private readonly pageSize: number,
  ) {}

  list(filter: SlaDomainFilter = {}, signal?: AbortSignal): Paginated<SlaDomain> {
    const domains = paginateConnection({
      graphql: this.graphql,
      operation: listSlaDomains,
      variables:
        filter.filterField === undefined
          ? {}
          : { filter: [{ field: filter.filterField, text: filter.filterText ?? '' }] },
      pageSize: this.pageSize,
      page: (data) => data.slaDomains,
      map: (node) => node,
      signal,
    });
    // Each domain with its clusters' pause state, as the REST interface lists them.
    return domains.mapAsync((node) => this.withClusters(node, signal));
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
    return this.withClusters(data.slaDomain, signal);
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
      { input: { slaId: slaDomainId, clusterUuids, pauseSla: paused } },
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

  private async withClusters(
    domain: GraphqlSlaDomain,
    signal: AbortSignal | undefined,
  ): Promise<SlaDomain> {
    return {
      id: domain.id,
      name: domain.name,
      description: domain.description,
      objectTypes: domain.objectTypes,
      protectedWorkloadCount: domain.protectedObjectCount,
      clusters: await this.clusters(domain.id, signal),
    };
  }

  private async clusters(
    slaDomainId: string,
    signal: AbortSignal | undefined,
  ): Promise<SlaDomainCluster[]> {
    return paginateConnection({
      graphql: this.graphql,
      operation: slaPauseStatuses,
      variables: { slaId: slaDomainId },
      pageSize: this.pageSize,
      page: (data) => data.globalSlaStatuses,
      map: (status): SlaDomainCluster => ({
        clusterId: status.cluster.id,
        clusterName: status.cluster.name,
        pauseStatus: status.pauseStatus,
      }),
      signal,
    }).toArray();
  }
}
