import { describe, expect, it } from 'vitest';
import { hasEnded } from '../../src/platform/jobs/job-status.js';
import { Vocabulary } from '../../src/platform/vocabulary/vocabulary.js';

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
    expect(vocabulary.eventPhase('Info')).toBe('unrecognised');
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
