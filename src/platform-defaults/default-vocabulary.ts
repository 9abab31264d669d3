/**
 * Every word the platform is known to use for the same few ideas (docs/platform-model.md,
 * "Vocabularies"). The REST interface is beta and its words are unpublished; the GraphQL schema
 * spells one workload type several ways depending on where it appears. So paw keeps the words in
 * this one table, compares them ignoring case, `_`, `-` and spaces (`TASK_SUCCESS` is
 * `TaskSuccess`), and lets a user add words (`platform.vocabulary` in the settings).
 *
 * This file holds data only and imports nothing: the settings schema and the definitions' checks
 * read it without pulling in the client.
 */

/** Where in the platform a workload type word appears. */
export const WORKLOAD_TYPE_PLACES = [
  /** The words this project's spec-derived model and simulator use by default. */
  'spec',
  /** GraphQL `ObjectTypeEnum` (a snappable's `objectType`; `snappableConnection` filters). */
  'objectType',
  /** GraphQL `ManagedObjectType`. */
  'managedObjectType',
  /** GraphQL `EventObjectType` (activity filters). */
  'eventObjectType',
  /** GraphQL `ActivityObjectTypeEnum` (activity results). */
  'activityObjectType',
  /** GraphQL `SlaObjectType` (an SLA Domain's `objectTypes`). */
  'slaObjectType',
] as const;
export type WorkloadTypePlace = (typeof WORKLOAD_TYPE_PLACES)[number];

/** How the platform takes an on-demand snapshot of a kind (none: it cannot). */
export type OnDemandSnapshot = 'vsphere-vm' | 'mssql-database';

export interface WorkloadKindWords {
  /** Set for the only kinds the platform snapshots on demand (vSphere VMs, SQL Server databases). */
  readonly onDemandSnapshot?: OnDemandSnapshot;
  readonly words: Readonly<Record<WorkloadTypePlace, string>>;
}

/**
 * Workload kinds by paw's canonical name (the `spec` word), with each place's word. Only the
 * first two can be snapshotted on demand. Both filesets share one SLA object type.
 */
export const DEFAULT_WORKLOAD_KINDS = {
  VSPHERE_VM: {
    onDemandSnapshot: 'vsphere-vm',
    words: {
      spec: 'VSPHERE_VM',
      objectType: 'VmwareVirtualMachine',
      managedObjectType: 'VSPHERE_VIRTUAL_MACHINE',
      eventObjectType: 'VMWARE_VM',
      activityObjectType: 'VmwareVm',
      slaObjectType: 'VSPHERE_OBJECT_TYPE',
    },
  },
  MSSQL_DATABASE: {
    onDemandSnapshot: 'mssql-database',
    words: {
      spec: 'MSSQL_DATABASE',
      objectType: 'Mssql',
      managedObjectType: 'MSSQL_DATABASE',
      eventObjectType: 'MSSQL',
      activityObjectType: 'Mssql',
      slaObjectType: 'MSSQL_OBJECT_TYPE',
    },
  },
  LINUX_FILESET: {
    words: {
      spec: 'LINUX_FILESET',
      objectType: 'LinuxFileset',
      managedObjectType: 'LINUX_FILESET',
      eventObjectType: 'LINUX_FILESET',
      activityObjectType: 'LinuxFileset',
      slaObjectType: 'FILESET_OBJECT_TYPE',
    },
  },
  WINDOWS_FILESET: {
    words: {
      spec: 'WINDOWS_FILESET',
      objectType: 'WindowsFileset',
      managedObjectType: 'WINDOWS_FILESET',
      eventObjectType: 'WINDOWS_FILESET',
      activityObjectType: 'WindowsFileset',
      slaObjectType: 'FILESET_OBJECT_TYPE',
    },
  },
  NAS_SHARE: {
    words: {
      spec: 'NAS_SHARE',
      objectType: 'ShareFileset',
      managedObjectType: 'SHARE_FILESET',
      eventObjectType: 'SHARE_FILESET',
      activityObjectType: 'ShareFileset',
      slaObjectType: 'NAS_OBJECT_TYPE',
    },
  },
  ORACLE_DATABASE: {
    words: {
      spec: 'ORACLE_DATABASE',
      objectType: 'OracleDatabase',
      managedObjectType: 'ORACLE_DATABASE',
      eventObjectType: 'ORACLE_DB',
      activityObjectType: 'OracleDatabase',
      slaObjectType: 'ORACLE_OBJECT_TYPE',
    },
  },
  HYPERV_VM: {
    words: {
      spec: 'HYPERV_VM',
      objectType: 'HypervVirtualMachine',
      managedObjectType: 'HYPERV_VIRTUAL_MACHINE',
      eventObjectType: 'HYPERV_VM',
      activityObjectType: 'HypervVm',
      slaObjectType: 'HYPERV_OBJECT_TYPE',
    },
  },
  AWS_EC2_INSTANCE: {
    words: {
      spec: 'AWS_EC2_INSTANCE',
      objectType: 'AwsNativeEc2Instance',
      managedObjectType: 'AWS_NATIVE_EC2_INSTANCE',
      eventObjectType: 'AWS_EC2_INSTANCE',
      activityObjectType: 'Ec2Instance',
      slaObjectType: 'AWS_EC2_EBS_OBJECT_TYPE',
    },
  },
} as const satisfies Record<string, WorkloadKindWords>;

/**
 * Where a job (or an activity) stands. `unrecognised` is a word paw has never seen: it is
 * reported as such, with the word, never guessed to be a success or a failure.
 */
export const JOB_PHASES = ['in_progress', 'succeeded', 'failed', 'canceled'] as const;
export type KnownJobPhase = (typeof JOB_PHASES)[number];

/**
 * Snapshot job statuses (an async request's `status`, a free string): the job record's words,
 * then the words seen across the GraphQL schema for the same idea.
 */
export const DEFAULT_JOB_STATUS_WORDS: Readonly<Record<KnownJobPhase, readonly string[]>> = {
  in_progress: [
    'QUEUED',
    'ACQUIRING',
    'RUNNING',
    'FINISHING',
    'TO_FINISH',
    'TO_RETRY',
    'YIELDING',
    'YIELDED',
    'TO_YIELDING',
    'TO_YIELDED',
    'CANCELING',
    'CANCELLING',
    'TO_CANCEL',
    'UNDOING',
    'TO_UNDO',
    'IN_PROGRESS',
  ],
  succeeded: ['SUCCEEDED', 'SUCCESS', 'TASK_SUCCESS'],
  failed: ['FAILED', 'FAILURE', 'TASK_FAILURE'],
  canceled: ['CANCELED', 'CANCELLED'],
};

/**
 * Activity (event) statuses, filters' and results' words alike. A partial success of a snapshot
 * is not a success paw can vouch for: it ends the item as failed, with the word.
 */
export const DEFAULT_EVENT_STATUS_WORDS: Readonly<Record<KnownJobPhase, readonly string[]>> = {
  in_progress: ['QUEUED', 'RUNNING', 'CANCELING', 'CANCELLING', 'ACTIVE', 'IN_PROGRESS'],
  succeeded: ['SUCCESS', 'TASK_SUCCESS', 'SUCCEEDED'],
  failed: ['FAILURE', 'TASK_FAILURE', 'FAILED', 'PARTIAL_SUCCESS'],
  canceled: ['CANCELED', 'CANCELLED'],
};

/** Activity types paw looks for: a backup (on-demand or scheduled snapshot) of a workload. */
export const EVENT_TYPE_MEANINGS = ['backup'] as const;
export type EventTypeMeaning = (typeof EVENT_TYPE_MEANINGS)[number];

export const DEFAULT_EVENT_TYPE_WORDS: Readonly<Record<EventTypeMeaning, readonly string[]>> = {
  backup: ['BACKUP', 'SNAPSHOT', 'ON_DEMAND_BACKUP'],
};
