import { z } from 'zod';
import type { ClusterOperations } from '../api/platform-api.js';
import type { Cluster, ClusterFilters } from '../records/cluster.js';
import type { FieldAliases } from './field-aliases.js';
import type { RestClient } from './rest-client.js';
import { RestListing } from './rest-listing.js';

/** A cluster as the REST interface lists it; unknown types and states pass through as strings. */
const clusterRecordSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  type: z.string().nullish(),
  connectionState: z.string().nullish(),
  version: z.string().nullish(),
});

/** Clusters through the task-based REST interface. */
export class ClustersApi extends RestListing<Cluster, ClusterFilters> implements ClusterOperations {
  constructor(rest: RestClient, aliases: FieldAliases) {
    super(rest, 'listClusters', aliases.schemaFor('cluster', clusterRecordSchema));
  }
}
