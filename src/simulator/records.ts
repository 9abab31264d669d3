/**
 * The simulator's in-memory records and the enumerations of docs/platform-model.md. The public
 * shapes (what goes over the wire) are the zod schemas of rest-schemas.ts; these are what the
 * stores hold.
 */

export const WORKLOAD_TYPES = [
  'VSPHERE_VM',
  'MSSQL_DATABASE',
  'LINUX_FILESET',
  'WINDOWS_FILESET',
  'NAS_SHARE',
  'ORACLE_DATABASE',
  'HYPERV_VM',
  'AWS_EC2_INSTANCE',
] as const;
export type WorkloadType = (typeof WORKLOAD_TYPES)[number];

/** The only types the platform takes on-demand snapshots of. */
export const SNAPSHOTTABLE_TYPES: ReadonlySet<WorkloadType> = new Set([
  'VSPHERE_VM',
  'MSSQL_DATABASE',
]);

export const CLUSTER_TYPES = [
  'OnPrem',
  'Cloud',
  'Robo',
  'ExoCompute',
  'Polaris',
  'Unknown',
] as const;
export type ClusterType = (typeof CLUSTER_TYPES)[number];

export const CONNECTION_STATES = ['Connected', 'Disconnected', 'Initializing'] as const;
export type ConnectionState = (typeof CONNECTION_STATES)[number];

export const FREQUENCY_UNITS = ['HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY'] as const;
export const RETENTION_UNITS = ['DAYS', 'WEEKS', 'MONTHS', 'YEARS'] as const;
export const PAUSE_STATUSES = ['NOT_PAUSED', 'PAUSED', 'UNKNOWN'] as const;
export type PauseStatus = (typeof PAUSE_STATUSES)[number];

export const EVENT_SEVERITIES = ['SEVERITY_CRITICAL', 'SEVERITY_WARNING', 'SEVERITY_INFO'] as const;

export type EventType = 'BACKUP' | 'CONFIGURATION';
export type EventStatus =
  | 'QUEUED'
  | 'RUNNING'
  | 'SUCCESS'
  | 'FAILURE'
  | 'PARTIAL_SUCCESS'
  | 'CANCELING'
  | 'CANCELED'
  | 'TASK_SUCCESS'
  | 'TASK_FAILURE'
  | 'INFO'
  | 'WARNING';
export type EventSeverity = (typeof EVENT_SEVERITIES)[number];

export interface SimCluster {
  readonly id: string;
  readonly name: string;
  readonly type: ClusterType;
  connectionState: ConnectionState;
  readonly version: string;
  readonly nodeCount: number;
}

export interface SimWorkload {
  readonly id: string;
  readonly name: string;
  readonly type: WorkloadType;
  readonly cluster: SimCluster;
  slaDomainId: string | null;
  /** The SLA Domain at inventory time: scheduled snapshot history derives from it. */
  readonly initialSlaDomainId: string | null;
  /** Seed of the workload's derived snapshot history. */
  readonly historySeed: number;
}

export interface Frequency {
  unit: (typeof FREQUENCY_UNITS)[number];
  interval: number;
}

export interface Retention {
  unit: (typeof RETENTION_UNITS)[number];
  duration: number;
}

export interface SimSlaDomain {
  readonly id: string;
  name: string;
  description: string;
  objectTypes: WorkloadType[];
  frequency: Frequency;
  retention: Retention;
  readonly clusterIds: readonly string[];
  /**
   * The clusters it is paused on, by cluster id, with who paused it there, when and why; shown
   * as UNKNOWN while the cluster is Disconnected.
   */
  readonly pauses: Map<string, SlaPause>;
  protectedWorkloadCount: number;
}

/** Who paused an SLA Domain on a cluster, when (epoch milliseconds) and why. */
export interface SlaPause {
  /** The service account's name, or the user's email. */
  readonly pausedBy: string;
  readonly note: string;
  readonly since: number;
}

export interface SimEvent {
  readonly id: string;
  /** Epoch milliseconds. */
  readonly time: number;
  readonly type: EventType;
  readonly status: EventStatus;
  readonly severity: EventSeverity;
  readonly objectId: string;
  readonly objectName: string;
  readonly objectType: string;
  readonly clusterId: string | null;
  readonly jobId: string | null;
  readonly message: string;
}

export interface SimSnapshot {
  readonly id: string;
  readonly workloadId: string;
  /** Epoch milliseconds. */
  readonly date: number;
  readonly isOnDemand: boolean;
  readonly slaDomainId: string | null;
  readonly expirationDate: number | null;
  readonly jobId: string | null;
}

/** Milliseconds of a retention period, calendar months and years approximated. */
export function retentionMs(retention: Retention): number {
  const day = 86_400_000;
  const perUnit = { DAYS: day, WEEKS: 7 * day, MONTHS: 30 * day, YEARS: 365 * day } as const;
  return retention.duration * perUnit[retention.unit];
}

/** Milliseconds between two scheduled snapshots of an SLA Domain. */
export function frequencyMs(frequency: Frequency): number {
  const hour = 3_600_000;
  const perUnit = {
    HOURLY: hour,
    DAILY: 24 * hour,
    WEEKLY: 168 * hour,
    MONTHLY: 720 * hour,
  } as const;
  return frequency.interval * perUnit[frequency.unit];
}
