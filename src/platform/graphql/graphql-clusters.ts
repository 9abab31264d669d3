import type { ClusterOperations } from '../api/platform-api.js';
import type { Paginated } from '../pagination/paginated.js';
import type { Cluster, ClusterFilters } from '../records/cluster.js';
import { listClusters } from './cluster-operations.js';
import type { GraphqlClient } from './graphql-client.js';
import { paginateConnection } from './paginate-connection.js';

/** Clusters through GraphQL (`clusterConnection`). */
export class GraphqlClusters implements ClusterOperations {
  constructor(
    private readonly graphql: GraphqlClient,
    private readonly pageSize: number,
  ) {}

  list(filters: ClusterFilters = {}, signal?: AbortSignal): Paginated<Cluster> {
    return paginateConnection({
      graphql: this.graphql,
      operation: listClusters,
      variables: {
        filter: {
          ...(filters.name === undefined ? {} : { name: [filters.name] }),
          ...(filters.type === undefined ? {} : { type: [filters.type] }),
          ...(filters.connectionState === undefined
            ? {}
            : { connectionState: [filters.connectionState] }),
        },
      },
      pageSize: this.pageSize,
      page: (data) => data.clusterConnection,
      map: (node): Cluster => ({
        id: node.id,
        name: node.name,
        type: node.type,
        version: node.version,
        connectionState: node.status,
      }),
      signal,
    });
  }
}
