import { z } from 'zod';
import type { ClusterOperations } from '../api/platform-api.js';
import type { Paginated } from '../pagination/paginated.js';
import type { Cluster, ClusterFilters } from '../records/cluster.js';
import type { FieldAliases } from './field-aliases.js';
import type { RestClient } from './rest-client.js';

/** A cluster as the REST interface lists it; unknown types and states pass through as strings. */
const clusterRecordSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  type: z.string().nullish(),
  connectionState: z.string().nullish(),
  version: z.string().nullish(),
});

/** Clusters through the task-based REST interface. */
export class ClustersApi implements ClusterOperations {
  private readonly schema;

  constructor(
    private readonly rest: RestClient,
    aliases: FieldAliases,
  ) {
    this.schema = aliases.schemaFor('cluster', clusterRecordSchema).transform((c): Cluster => c);
  }

  list(filters: ClusterFilters = {}, signal?: AbortSignal): Paginated<Cluster> {
    return this.rest.collection('listClusters', this.schema, { query: { ...filters }, signal });
  }
}
