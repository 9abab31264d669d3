/** An SLA Domain and its pause state on each of its clusters. */
export interface SlaDomain {
  readonly id: string;
  readonly name: string;
  readonly description?: string | null | undefined;
  /** The platform's words for the workload types it protects. */
  readonly objectTypes?: readonly string[] | null | undefined;
  readonly frequency?: { readonly unit: string; readonly interval: number } | null | undefined;
  readonly retention?: { readonly unit: string; readonly duration: number } | null | undefined;
  readonly protectedWorkloadCount?: number | null | undefined;
  /**
   * The cluster a cluster-local SLA Domain was created on (GraphQL's `ClusterSlaDomain`): it
   * exists there only. Undefined for a global one, or where the interface does not say.
   */
  readonly localTo?: { readonly clusterId: string; readonly clusterName: string } | undefined;
  /**
   * Every cluster the domain is on, with its pause state. Undefined when the listing did not
   * read them (GraphQL lists a domain with `pausedClusters` only): `get` reads them.
   */
  readonly clusters?: readonly SlaDomainCluster[] | null | undefined;
  /** The clusters it is paused on, where the platform said so without listing every cluster. */
  readonly pausedClusters?: readonly SlaDomainCluster[] | undefined;
}

export interface SlaDomainCluster {
  readonly clusterId: string;
  readonly clusterName?: string | null | undefined;
  /** `NOT_PAUSED`, `PAUSED`, `UNKNOWN` (disconnected), or a word paw passes through. */
  readonly pauseStatus?: string | null | undefined;
  /** Who paused it, when and why, where the platform says (GraphQL `pausedSlaInfo`). */
  readonly pause?: PauseInfo | undefined;
}

/** Who paused an SLA Domain on a cluster: shown wherever paw leaves someone else's pause alone. */
export interface PauseInfo {
  readonly pausedBy: string;
  readonly note: string;
  readonly since?: string | undefined;
}

/** Who paused, since when and why, in words: `alice@example.com since 2026-11-26T01:00:00Z: "disk swap"`. */
export function describePause(pause: PauseInfo): string {
  const since = pause.since === undefined ? '' : ` since ${pause.since}`;
  const note = pause.note.trim() === '' ? '' : `: ${JSON.stringify(pause.note)}`;
  return `${pause.pausedBy || 'someone'}${since}${note}`;
}

/** The clusters a domain is paused on, however the platform said it. */
export function pausedClustersOf(domain: SlaDomain): readonly SlaDomainCluster[] {
  return (
    domain.pausedClusters ??
    (domain.clusters ?? []).filter((cluster) => cluster.pauseStatus === 'PAUSED')
  );
}

export const SLA_FILTER_FIELDS = [
  'NAME',
  'NAME_EXACT_MATCH',
  'CLUSTER_UUID',
  'OBJECT_TYPE',
  'SHOW_PAUSED_SLAS_ONLY',
] as const;

export interface SlaDomainFilter {
  readonly filterField?: (typeof SLA_FILTER_FIELDS)[number] | undefined;
  readonly filterText?: string | undefined;
}
