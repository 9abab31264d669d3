import { isEnumType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { platformSchema } from '../../../src/platform/graphql/schema/platform-schema.js';
import {
  DEFAULT_EVENT_STATUS_WORDS,
  DEFAULT_EVENT_TYPE_WORDS,
  DEFAULT_JOB_STATUS_WORDS,
  DEFAULT_WORKLOAD_KINDS,
  WORKLOAD_TYPE_PLACES,
  WORKLOAD_TYPE_PLACE_SOURCES,
  type SourcedWords,
  type WordSource,
} from '../../../src/platform/defaults/default-vocabulary.js';
import { hasEnded } from '../../../src/platform/jobs/job-status.js';
import { Vocabulary } from '../../../src/platform/vocabulary/vocabulary.js';

describe('Vocabulary: every word the platform uses, in one table', () => {
  const vocabulary = new Vocabulary();

  it.each([
    ['VSPHERE_VM', 'VSPHERE_VM'],
    ['VmwareVirtualMachine', 'VSPHERE_VM'],
    ['VSPHERE_VIRTUAL_MACHINE', 'VSPHERE_VM'],
    ['VMWARE_VM', 'VSPHERE_VM'],
    ['VmwareVm', 'VSPHERE_VM'],
    ['vmwarevirtualmachine', 'VSPHERE_VM'],
    ['MSSQL_DATABASE', 'MSSQL_DATABASE'],
    ['Mssql', 'MSSQL_DATABASE'],
    ['MSSQL', 'MSSQL_DATABASE'],
    ['LinuxFileset', 'LINUX_FILESET'],
    ['HypervVirtualMachine', 'HYPERV_VM'],
  ])('recognises the workload type %s as %s', (word, kind) => {
    expect(vocabulary.workloadKind(word)).toBe(kind);
  });

  it('snapshots only vSphere VMs and SQL Server databases, and leaves unknown types to the platform', () => {
    expect(vocabulary.snapshotDecision('VmwareVirtualMachine')).toEqual({
      action: 'trigger',
      kind: 'VSPHERE_VM',
      onDemandSnapshot: 'vsphere-vm',
    });
    expect(vocabulary.snapshotDecision('Mssql')).toMatchObject({
      action: 'trigger',
      onDemandSnapshot: 'mssql-database',
    });
    const skipped = vocabulary.snapshotDecision('ShareFileset');
    expect(skipped).toMatchObject({ action: 'skip', kind: 'NAS_SHARE' });
    expect(skipped.action === 'skip' && skipped.reason).toMatch(
      /^ShareFileset \(NAS_SHARE\): on-demand/,
    );
    // A word paw has never seen is not refused: the platform answers.
    expect(vocabulary.snapshotDecision('NutanixVirtualMachine')).toEqual({
      action: 'trigger',
      kind: undefined,
      onDemandSnapshot: undefined,
    });
  });

  it('matches types by kind, whatever the spelling', () => {
    expect(vocabulary.sameWorkloadType('VSPHERE_VM', 'VmwareVirtualMachine')).toBe(true);
    expect(vocabulary.sameWorkloadType('VSPHERE_VM', 'Mssql')).toBe(false);
    expect(vocabulary.sameWorkloadType('SomethingNew', 'somethingnew')).toBe(true);
    // The SLA object type of both filesets names two kinds: it is no single kind.
    expect(vocabulary.workloadKind('FILESET_OBJECT_TYPE')).toBeUndefined();
    expect(vocabulary.kindsOf('FILESET_OBJECT_TYPE')).toEqual(['LINUX_FILESET', 'WINDOWS_FILESET']);
  });

  it.each([
    ['QUEUED', 'in_progress'],
    ['Queued', 'in_progress'],
    ['IN_PROGRESS', 'in_progress'],
    ['Running', 'in_progress'],
    ['TO_FINISH', 'in_progress'],
    ['SUCCEEDED', 'succeeded'],
    [' succeeded ', 'succeeded'],
    ['SUCCESS', 'succeeded'],
    ['Success', 'succeeded'],
    ['TaskSuccess', 'succeeded'],
    ['FAILED', 'failed'],
    ['Failure', 'failed'],
    ['CANCELED', 'canceled'],
    ['CANCELLED', 'canceled'],
    ['Canceled', 'canceled'],
    ['EXPLODED', 'unrecognised'],
    ['', 'unrecognised'],
  ])('classifies the job status %j as %s', (status, phase) => {
    expect(vocabulary.jobPhase(status)).toBe(phase);
  });

  it('classifies activity statuses, filters and results alike, case-insensitively', () => {
    for (const word of ['SUCCESS', 'Success', 'TASK_SUCCESS', 'TaskSuccess']) {
      expect(vocabulary.eventPhase(word)).toBe('succeeded');
    }
    for (const word of ['FAILURE', 'Failure', 'PARTIAL_SUCCESS', 'PartialSuccess']) {
      expect(vocabulary.eventPhase(word)).toBe('failed');
    }
    expect(vocabulary.eventPhase('Running')).toBe('in_progress');
    // The level of an activity's latest message, not an end: the activity goes on.
    expect(vocabulary.eventPhase('Info')).toBe('in_progress');
    expect(vocabulary.eventPhase('WARNING')).toBe('in_progress');
    expect(vocabulary.eventPhase('UNKNOWN_EVENT_STATUS')).toBe('unrecognised');
    expect(vocabulary.isEventType('Backup', 'backup')).toBe(true);
    expect(vocabulary.isEventType('CONFIGURATION', 'backup')).toBe(false);
  });

  it('takes words from the settings: new spellings, new kinds, a word moved to another phase', () => {
    const extended = new Vocabulary({
      workloadTypes: { VSPHERE_VM: ['VirtualMachineV2'], KUBERNETES_NAMESPACE: ['K8sNamespace'] },
      jobStatuses: { succeeded: ['DONE'], failed: ['SUCCESS'] },
      eventTypes: { backup: ['SNAPPABLE_BACKUP'] },
    });
    expect(extended.snapshotDecision('virtualmachinev2')).toMatchObject({
      action: 'trigger',
      kind: 'VSPHERE_VM',
    });
    expect(extended.snapshotDecision('K8sNamespace')).toMatchObject({
      action: 'skip',
      kind: 'KUBERNETES_NAMESPACE',
    });
    expect(extended.jobPhase('done')).toBe('succeeded');
    expect(extended.jobPhase('SUCCESS')).toBe('failed');
    expect(extended.isEventType('SnappableBackup', 'backup')).toBe(true);
  });

  it('ends a job with a final phase, or an unknown word with an end time', () => {
    expect(hasEnded({ phase: 'succeeded', endTime: undefined })).toBe(true);
    expect(hasEnded({ phase: 'in_progress', endTime: '2026-01-01T00:00:00Z' })).toBe(false);
    expect(hasEnded({ phase: 'unrecognised', endTime: undefined })).toBe(false);
    expect(hasEnded({ phase: 'unrecognised', endTime: '2026-01-01T00:00:00Z' })).toBe(true);
  });
});

describe("the default vocabulary against the platform's published schema", () => {
  const enumValues = (name: string): readonly string[] => {
    const type = platformSchema().getType(name);
    if (!isEnumType(type)) throw new Error(`the published schema has no enum ${name}`);
    return type.getValues().map((value) => value.name);
  };
  const notPublished = (source: WordSource, words: readonly string[]) =>
    source === 'rest' ? [] : words.filter((word) => !enumValues(source).includes(word));

  it('spells every workload type word as its enum does (or marks it a REST word)', () => {
    const wrong = Object.entries(DEFAULT_WORKLOAD_KINDS).flatMap(([kind, entry]) =>
      WORKLOAD_TYPE_PLACES.flatMap((place) =>
        notPublished(WORKLOAD_TYPE_PLACE_SOURCES[place], [entry.words[place]]).map(
          (word) => `${kind}.${place}: ${word} (${WORKLOAD_TYPE_PLACE_SOURCES[place]})`,
        ),
      ),
    );
    expect(wrong).toEqual([]);
  });

  it('spells every status and activity type word as its enum does (or marks it a REST word)', () => {
    const tables: Record<string, SourcedWords<string>> = {
      jobStatuses: DEFAULT_JOB_STATUS_WORDS,
      eventStatuses: DEFAULT_EVENT_STATUS_WORDS,
      eventTypes: DEFAULT_EVENT_TYPE_WORDS,
    };
    const wrong = Object.entries(tables).flatMap(([table, bySource]) =>
      Object.entries(bySource).flatMap(([source, byMeaning]) =>
        Object.values(byMeaning ?? {}).flatMap((words: readonly string[] | undefined) =>
          notPublished(source as WordSource, words ?? []).map(
            (word) => `${table}.${source}: ${word}`,
          ),
        ),
      ),
    );
    expect(wrong).toEqual([]);
  });

  it('knows every value of the status enums paw reads', () => {
    const vocabulary = new Vocabulary();
    const unknown = [
      ...enumValues('ActivityStatusEnum').filter(
        (w) => vocabulary.eventPhase(w) === 'unrecognised',
      ),
      ...enumValues('EventStatus').filter((w) => vocabulary.eventPhase(w) === 'unrecognised'),
      ...enumValues('CdmJobStatus').filter((w) => vocabulary.jobPhase(w) === 'unrecognised'),
    ];
    // An event status the platform itself calls unknown stays unrecognised, reported with its word.
    expect(unknown).toEqual(['UNKNOWN_EVENT_STATUS']);
    expect(vocabulary.eventPhase('Info')).toBe('in_progress');
    expect(vocabulary.jobPhase('JOB_NOTFOUND')).toBe('failed');
    expect(vocabulary.jobPhase('PENDING')).toBe('in_progress');
  });
});
