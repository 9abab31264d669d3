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
  /** The REST interface's words (unpublished; this project's spec-derived model and simulator). */
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

/**
 * Where a word of these tables comes from: an enum of the platform's published GraphQL schema
 * (a test reads src/platform/graphql/schema/platform-schema.graphql and finds each word in its
 * enum), or `rest`: the REST interface and the job records, which publish no vocabulary.
 */
export type WordSource =
  | 'rest'
  | 'ObjectTypeEnum'
  | 'ManagedObjectType'
  | 'EventObjectType'
  | 'ActivityObjectTypeEnum'
  | 'SlaObjectType'
  | 'CdmJobStatus'
  | 'ActivityStatusEnum'
  | 'EventStatus'
  | 'ActivityTypeEnum'
  | 'EventType';

/** The source of each place's workload type words. */
export const WORKLOAD_TYPE_PLACE_SOURCES: Readonly<Record<WorkloadTypePlace, WordSource>> = {
  spec: 'rest',
  objectType: 'ObjectTypeEnum',
  managedObjectType: 'ManagedObjectType',
  eventObjectType: 'EventObjectType',
  activityObjectType: 'ActivityObjectTypeEnum',
  slaObjectType: 'SlaObjectType',
};

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
      activityObjectType: 'OracleDb',
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
      eventObjectType: 'EC2_INSTANCE',
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

/** Words for the same few meanings, by where they come from. */
export type SourcedWords<M extends string> = Readonly<
  Partial<Record<WordSource, Readonly<Partial<Record<M, readonly string[]>>>>>
>;

/**
 * Snapshot job statuses (an async request's `status`, a free string in the schema): the job
 * record's words, and `CdmJobStatus`, the schema's enum of a cluster job's status. A job the
 * cluster no longer knows (`JOB_NOTFOUND`) will never end: it fails, with the word.
 */
export const DEFAULT_JOB_STATUS_WORDS: SourcedWords<KnownJobPhase> = {
  rest: {
    in_progress: [
      'QUEUED',
      'PENDING',
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
    failed: ['FAILED', 'FAILURE', 'TASK_FAILURE', 'NOTFOUND'],
    canceled: ['CANCELED', 'CANCELLED'],
  },
  CdmJobStatus: {
    in_progress: [
      'JOB_PENDING',
      'JOB_QUEUED',
      'JOB_ACQUIRING',
      'JOB_RUNNING',
      'JOB_FINISHING',
      'JOB_CANCELING',
      'JOB_UNDOING',
    ],
    succeeded: ['JOB_SUCCEEDED'],
    failed: ['JOB_FAILED', 'JOB_NOTFOUND'],
    canceled: ['JOB_CANCELED'],
  },
};

/**
 * Activity (event) statuses: results (`ActivityStatusEnum`) and filters (`EventStatus`) spell
 * them differently. A partial success of a snapshot is not a success paw can vouch for: it ends
 * the item as failed, with the word. `Info` and `Warning` are the levels of an activity's
 * latest message, not an end: the activity goes on.
 */
export const DEFAULT_EVENT_STATUS_WORDS: SourcedWords<KnownJobPhase> = {
  ActivityStatusEnum: {
    in_progress: ['Queued', 'Running', 'Canceling', 'Info', 'Warning'],
    succeeded: ['Success', 'TaskSuccess'],
    failed: ['Failure', 'TaskFailure', 'PARTIAL_SUCCESS'],
    canceled: ['Canceled'],
  },
  EventStatus: {
    in_progress: ['QUEUED', 'RUNNING', 'CANCELING', 'INFO', 'WARNING'],
    succeeded: ['SUCCESS', 'TASK_SUCCESS'],
    failed: ['FAILURE', 'TASK_FAILURE', 'PARTIAL_SUCCESS'],
    canceled: ['CANCELED'],
  },
  rest: {
    in_progress: ['CANCELLING', 'ACTIVE', 'IN_PROGRESS'],
    succeeded: ['SUCCEEDED'],
    failed: ['FAILED'],
    canceled: ['CANCELLED'],
  },
};

/** Activity types paw looks for: a backup (on-demand or scheduled snapshot) of a workload. */
export const EVENT_TYPE_MEANINGS = ['backup'] as const;
export type EventTypeMeaning = (typeof EVENT_TYPE_MEANINGS)[number];

export const DEFAULT_EVENT_TYPE_WORDS: SourcedWords<EventTypeMeaning> = {
  ActivityTypeEnum: { backup: ['Backup'] },
  EventType: { backup: ['BACKUP'] },
  rest: { backup: ['SNAPSHOT', 'ON_DEMAND_BACKUP'] },
};
