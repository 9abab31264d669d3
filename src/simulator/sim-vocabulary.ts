import { z } from 'zod';
import {
  EVENT_SEVERITIES,
  WORKLOAD_TYPES,
  type EventSeverity,
  type EventStatus,
  type EventType,
  type WorkloadType,
} from './records.js';

/**
 * The words the simulator speaks (docs/platform-model.md, "The platforms the simulator can
 * be"). It keeps canonical words (this project's model) in its stores and translates at the
 * edge: `spec` says them as they are, `graphql` as the platform's published GraphQL schema
 * spells the same ideas (each word a value of the schema's enum; the GraphQL endpoint's schema
 * test fails on one it lacks). Requests accept every spelling of every preset,
 * case-insensitively. The table is the simulator's own: it shares no code with paw's client,
 * so a mismatch shows in a test.
 */
export const SIM_VOCABULARIES = ['spec', 'graphql'] as const;
export type SimVocabularyName = (typeof SIM_VOCABULARIES)[number];

/** Canonical job statuses the job engine produces. */
const JOB_STATUSES = [
  'QUEUED',
  'ACQUIRING',
  'RUNNING',
  'FINISHING',
  'SUCCEEDED',
  'FAILED',
  'CANCELING',
  'CANCELED',
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Everything an activity record can be about. */
export type ActivityObject = WorkloadType | 'SLA_DOMAIN';

interface Words {
  readonly workloadType: Readonly<Record<WorkloadType, string>>;
  readonly slaObjectType: Readonly<Record<WorkloadType, string>>;
  readonly jobStatus: Readonly<Record<JobStatus, string>>;
  readonly eventType: Readonly<Record<EventType, string>>;
  readonly eventStatus: Readonly<Partial<Record<EventStatus, string>>>;
  readonly eventObjectType: Readonly<Record<ActivityObject, string>>;
  /** Only GraphQL translates severities: REST events keep the canonical word in both presets. */
  readonly eventSeverity: Readonly<Record<EventSeverity, string>>;
}

function identity<K extends string>(keys: readonly K[]): Record<K, string> {
  const words = {} as Record<K, string>;
  for (const key of keys) words[key] = key;
  return words;
}

/**
 * The published schema's result words: ObjectTypeEnum, SlaObjectType, ActivityTypeEnum,
 * ActivityStatusEnum, ActivityObjectTypeEnum, ActivitySeverityEnum. Job statuses are the
 * exception: `AsyncRequestStatus.status` is a free string, and the platform spells the same
 * states several ways, so these are deliberately mixed.
 */
const GRAPHQL_WORDS: Words = {
  workloadType: {
    VSPHERE_VM: 'VmwareVirtualMachine',
    MSSQL_DATABASE: 'Mssql',
    LINUX_FILESET: 'LinuxFileset',
    WINDOWS_FILESET: 'WindowsFileset',
    NAS_SHARE: 'ShareFileset',
    ORACLE_DATABASE: 'OracleDatabase',
    HYPERV_VM: 'HypervVirtualMachine',
    AWS_EC2_INSTANCE: 'AwsNativeEc2Instance',
  },
  slaObjectType: {
    VSPHERE_VM: 'VSPHERE_OBJECT_TYPE',
    MSSQL_DATABASE: 'MSSQL_OBJECT_TYPE',
    LINUX_FILESET: 'FILESET_OBJECT_TYPE',
    WINDOWS_FILESET: 'FILESET_OBJECT_TYPE',
    NAS_SHARE: 'NAS_OBJECT_TYPE',
    ORACLE_DATABASE: 'ORACLE_OBJECT_TYPE',
    HYPERV_VM: 'HYPERV_OBJECT_TYPE',
    AWS_EC2_INSTANCE: 'AWS_EC2_EBS_OBJECT_TYPE',
  },
  jobStatus: {
    QUEUED: 'Queued',
    ACQUIRING: 'IN_PROGRESS',
    RUNNING: 'Running',
    FINISHING: 'TO_FINISH',
    SUCCEEDED: 'Success',
    FAILED: 'Failure',
    CANCELING: 'Canceling',
    CANCELED: 'CANCELLED',
  },
  eventType: { BACKUP: 'Backup', CONFIGURATION: 'Configuration' },
  eventStatus: {
    QUEUED: 'Queued',
    RUNNING: 'Running',
    SUCCESS: 'Success',
    FAILURE: 'Failure',
    PARTIAL_SUCCESS: 'PARTIAL_SUCCESS',
    CANCELING: 'Canceling',
    CANCELED: 'Canceled',
    TASK_SUCCESS: 'TaskSuccess',
    TASK_FAILURE: 'TaskFailure',
    INFO: 'Info',
    WARNING: 'Warning',
  },
  eventObjectType: {
    VSPHERE_VM: 'VmwareVm',
    MSSQL_DATABASE: 'Mssql',
    LINUX_FILESET: 'LinuxFileset',
    WINDOWS_FILESET: 'WindowsFileset',
    NAS_SHARE: 'ShareFileset',
    ORACLE_DATABASE: 'OracleDb',
    HYPERV_VM: 'HypervVm',
    AWS_EC2_INSTANCE: 'Ec2Instance',
    SLA_DOMAIN: 'SlaDomain',
  },
  eventSeverity: {
    SEVERITY_CRITICAL: 'Critical',
    SEVERITY_WARNING: 'Warning',
    SEVERITY_INFO: 'Info',
  },
};

const SPEC_WORDS: Words = {
  workloadType: identity(WORKLOAD_TYPES),
  slaObjectType: identity(WORKLOAD_TYPES),
  jobStatus: identity(JOB_STATUSES),
  eventType: { BACKUP: 'BACKUP', CONFIGURATION: 'CONFIGURATION' },
  eventStatus: {},
  eventObjectType: { ...identity(WORKLOAD_TYPES), SLA_DOMAIN: 'SLA_DOMAIN' },
  eventSeverity: identity(EVENT_SEVERITIES),
};

/** The published schema's filter words for activity object types (`EventObjectType`). */
const EVENT_OBJECT_TYPE_FILTER_WORDS: Readonly<Record<ActivityObject, string>> = {
  VSPHERE_VM: 'VMWARE_VM',
  MSSQL_DATABASE: 'MSSQL',
  LINUX_FILESET: 'LINUX_FILESET',
  WINDOWS_FILESET: 'WINDOWS_FILESET',
  NAS_SHARE: 'SHARE_FILESET',
  ORACLE_DATABASE: 'ORACLE_DB',
  HYPERV_VM: 'HYPERV_VM',
  AWS_EC2_INSTANCE: 'EC2_INSTANCE',
  SLA_DOMAIN: 'SLA_DOMAIN',
};

/** The option: a preset, and single workload types respelled on top of it (tests use this). */
export const simVocabularySchema = z.enum(SIM_VOCABULARIES).default('spec');
export const typeSpellingsSchema = z
  .partialRecord(z.enum(WORKLOAD_TYPES), z.string().trim().min(1))
  .default({});

/** How the simulator compares words: ignoring case, `_`, `-` and spaces. */
function normalize(word: string): string {
  return word.toLowerCase().replace(/[\s_.-]+/g, '');
}

/**
 * The words of one simulator: what it says (the preset, respelled types on top), and what it
 * understands (every spelling of every preset, and the respellings).
 */
export class SimVocabulary {
  private readonly says: Words;
  private readonly workloadTypesByWord = new Map<string, WorkloadType[]>();
  private readonly eventStatusesByWord = new Map<string, EventStatus>();
  private readonly eventTypesByWord = new Map<string, EventType>();
  private readonly activityObjectsByWord = new Map<string, ActivityObject>();

  constructor(
    readonly name: SimVocabularyName,
    typeSpellings: Readonly<Partial<Record<WorkloadType, string>>> = {},
  ) {
    const preset = name === 'graphql' ? GRAPHQL_WORDS : SPEC_WORDS;
    this.says = { ...preset, workloadType: { ...preset.workloadType, ...typeSpellings } };
    for (const words of [SPEC_WORDS, GRAPHQL_WORDS, this.says]) {
      for (const type of WORKLOAD_TYPES) {
        this.addType(words.workloadType[type], type);
        this.addType(words.slaObjectType[type], type);
        this.addType(words.eventObjectType[type], type);
        this.addType(EVENT_OBJECT_TYPE_FILTER_WORDS[type], type);
      }
      for (const [status, word] of Object.entries(words.eventStatus)) {
        this.eventStatusesByWord.set(normalize(word), status as EventStatus);
      }
      for (const [type, word] of Object.entries(words.eventType)) {
        this.eventTypesByWord.set(normalize(word), type as EventType);
      }
      for (const [object, word] of Object.entries(words.eventObjectType)) {
        this.activityObjectsByWord.set(normalize(word), object as ActivityObject);
      }
    }
    for (const [object, word] of Object.entries(EVENT_OBJECT_TYPE_FILTER_WORDS)) {
      this.activityObjectsByWord.set(normalize(word), object as ActivityObject);
    }
    for (const status of Object.keys(GRAPHQL_WORDS.eventStatus)) {
      this.eventStatusesByWord.set(normalize(status), status as EventStatus);
    }
  }

  workloadType(type: WorkloadType): string {
    return this.says.workloadType[type];
  }

  /** An SLA Domain's object types, each word once (both filesets share one in `graphql`). */
  slaObjectTypes(types: readonly WorkloadType[]): string[] {
    return [...new Set(types.map((type) => this.says.slaObjectType[type]))];
  }

  jobStatus(status: JobStatus): string {
    return this.says.jobStatus[status];
  }

  eventType(type: EventType): string {
    return this.says.eventType[type];
  }

  eventStatus(status: EventStatus): string {
    return this.says.eventStatus[status] ?? status;
  }

  eventObjectType(object: ActivityObject): string {
    return this.says.eventObjectType[object];
  }

  /** The published schema's word for it in activity filters (`EventObjectType`). */
  eventObjectTypeFilterWord(object: ActivityObject): string {
    return EVENT_OBJECT_TYPE_FILTER_WORDS[object];
  }

  eventSeverity(severity: EventSeverity): string {
    return this.says.eventSeverity[severity];
  }

  /** The canonical types a word names (an SLA object type may name two); empty if none. */
  parseWorkloadTypes(word: string): readonly WorkloadType[] {
    return this.workloadTypesByWord.get(normalize(word)) ?? [];
  }

  parseEventStatus(word: string): EventStatus | undefined {
    return this.eventStatusesByWord.get(normalize(word));
  }

  parseEventType(word: string): EventType | undefined {
    return this.eventTypesByWord.get(normalize(word));
  }

  parseActivityObject(word: string): ActivityObject | undefined {
    return this.activityObjectsByWord.get(normalize(word));
  }

  private addType(word: string, type: WorkloadType): void {
    const key = normalize(word);
    const types = this.workloadTypesByWord.get(key) ?? [];
    if (!types.includes(type)) types.push(type);
    this.workloadTypesByWord.set(key, types);
  }
}
