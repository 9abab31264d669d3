/**
 * Workload types the platform reports (docs/platform-model.md). Only the first two can be
 * snapshotted on demand; a snapshot definition may still select the others, and their
 * workloads are then recorded as skipped with the reason, never triggered.
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

/** The types an on-demand snapshot accepts. */
export const SNAPSHOT_CAPABLE_TYPES: readonly WorkloadType[] = ['VSPHERE_VM', 'MSSQL_DATABASE'];

export function isSnapshotCapable(type: string): boolean {
  return (SNAPSHOT_CAPABLE_TYPES as readonly string[]).includes(type);
}
