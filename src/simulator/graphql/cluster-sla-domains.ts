import { createHash } from 'node:crypto';
import type { SimCluster, SimSlaDomain } from '../records.js';
import type { SimulatorState } from '../simulator-state.js';
import { clusterView } from './graphql-views.js';

/**
 * Cluster-local SLA Domains (`ClusterSlaDomain`): made on a cluster rather than on the
 * platform, so `slaDomains` lists them beside the global ones (`GlobalSlaReply`) with only the
 * interface's fields and their cluster in common. The simulator's world has one on each cluster
 * (when `clusterSlaDomains` is on, as by default), named after it; it protects nothing and is
 * never paused, and only GraphQL shows it (the REST model has global SLA Domains only).
 */
export interface ClusterLocalSla {
  readonly id: string;
  readonly name: string;
  readonly cluster: SimCluster;
}

/** A stable UUID for the cluster-local SLA Domain of a cluster. */
function localSlaId(cluster: SimCluster): string {
  const hex = createHash('sha1').update(`cluster-sla:${cluster.id}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-9${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The cluster-local SLA Domains, one per cluster in inventory order; none when turned off. */
export function clusterLocalSlas(state: SimulatorState): readonly ClusterLocalSla[] {
  if (!state.options.clusterSlaDomains) return [];
  return state.inventory.clusters.map((cluster) => ({
    id: localSlaId(cluster),
    name: `${cluster.name} Local`,
    cluster,
  }));
}

/** `ClusterSlaDomain`. */
export function clusterSlaView(local: ClusterLocalSla) {
  return {
    __typename: 'ClusterSlaDomain',
    id: local.id,
    name: local.name,
    cluster: clusterView(local.cluster),
    protectedObjectCount: 0,
  };
}

/** An item of `slaDomains`: a global SLA Domain or a cluster-local one. */
export type ListedSla =
  | { readonly global: SimSlaDomain; readonly local?: undefined }
  | { readonly local: ClusterLocalSla; readonly global?: undefined };

/** The name of a listed SLA Domain, of either kind. */
export function listedName(item: ListedSla): string {
  return item.global?.name ?? item.local?.name ?? '';
}

/** The id of a listed SLA Domain, of either kind. */
export function listedId(item: ListedSla): string {
  return item.global?.id ?? item.local?.id ?? '';
}
