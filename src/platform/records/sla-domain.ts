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
  readonly clusters?: readonly SlaDomainCluster[] | null | undefined;
}

export interface SlaDomainCluster {
  readonly clusterId: string;
  readonly clusterName?: string | null | undefined;
  /** `NOT_PAUSED`, `PAUSED`, `UNKNOWN` (disconnected), or a word paw passes through. */
  readonly pauseStatus?: string | null | undefined;
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
