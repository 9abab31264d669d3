export const CLUSTER_TYPES = [
  'OnPrem',
  'Cloud',
  'Robo',
  'ExoCompute',
  'Polaris',
  'Unknown',
] as const;
export const CONNECTION_STATES = ['Connected', 'Disconnected', 'Initializing'] as const;
/** The state of a cluster that can take no snapshot until it reconnects (the spec's word). */
export const DISCONNECTED: (typeof CONNECTION_STATES)[number] = 'Disconnected';

/** A cluster; unknown types and states pass through as the platform's words. */
export interface Cluster {
  readonly id: string;
  readonly name: string;
  readonly type?: string | null | undefined;
  readonly connectionState?: string | null | undefined;
  readonly version?: string | null | undefined;
}

/** A type alias, not an interface: it is sent as a REST query (`RestListing`), which wants an index signature. */
export type ClusterFilters = {
  readonly name?: string | undefined;
  readonly type?: string | undefined;
  readonly connectionState?: string | undefined;
};
