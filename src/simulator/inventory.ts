import type { SimCluster, SimWorkload } from './records.js';

/**
 * Clusters and workloads. Neither is created or deleted through the platform's interfaces, so
 * both are kept sorted once, in listing order (name, then id), and paged by binary search.
 */
export class Inventory {
  readonly clusters: readonly SimCluster[];
  readonly workloads: readonly SimWorkload[];
  private readonly clustersById: ReadonlyMap<string, SimCluster>;
  private readonly workloadsById: ReadonlyMap<string, SimWorkload>;

  constructor(clusters: readonly SimCluster[], workloads: readonly SimWorkload[]) {
    this.clusters = [...clusters].sort(byNameThenId);
    this.workloads = [...workloads].sort(byNameThenId);
    this.clustersById = new Map(clusters.map((cluster) => [cluster.id, cluster]));
    this.workloadsById = new Map(workloads.map((workload) => [workload.id, workload]));
  }

  cluster(id: string): SimCluster | undefined {
    return this.clustersById.get(id);
  }

  workload(id: string): SimWorkload | undefined {
    return this.workloadsById.get(id);
  }
}

export function byNameThenId(
  a: { name: string; id: string },
  b: { name: string; id: string },
): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return 0;
}
