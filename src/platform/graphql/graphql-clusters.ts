import type { VariablesOf } from 'gql.tada';
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
    // Filter words are the user's: the platform judges them (its enums are the schema's).
    const filter = {
      ...(filters.name === undefined ? {} : { name: [filters.name] }),
      ...(filters.type === undefined ? {} : { type: [filters.type] }),
      ...(filters.connectionState === undefined
        ? {}
        : { connectionState: [filters.connectionState] }),
    } as ClusterFilterVariables;
    return paginateConnection({
      graphql: this.graphql,
      document: listClusters,
      variables: { filter },
      pageSize: this.pageSize,
      connection: (data) => data.clusterConnection,
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

type ClusterFilterVariables = NonNullable<VariablesOf<typeof listClusters>['filter']>;
