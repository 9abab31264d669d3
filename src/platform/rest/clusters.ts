import { z } from 'zod';
import type { Paginated } from '../pagination/paginated.js';
import type { RestClient } from './rest-client.js';

export const CLUSTER_TYPES = [
  'OnPrem',
  'Cloud',
  'Robo',
  'ExoCompute',
  'Polaris',
  'Unknown',
] as const;
export const CONNECTION_STATES = ['Connected', 'Disconnected', 'Initializing'] as const;

/** A cluster as the REST interface lists it; unknown types and states pass through as strings. */
export const clusterSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  type: z.string().nullish(),
  connectionState: z.string().nullish(),
  version: z.string().nullish(),
});
export type Cluster = z.output<typeof clusterSchema>;

export interface ClusterFilters {
  readonly name?: string | undefined;
  readonly type?: string | undefined;
  readonly connectionState?: string | undefined;
}

export class ClustersApi {
  constructor(private readonly rest: RestClient) {}

  list(filters: ClusterFilters = {}, signal?: AbortSignal): Paginated<Cluster> {
    return this.rest.collection('listClusters', clusterSchema, { query: { ...filters }, signal });
  }
}
