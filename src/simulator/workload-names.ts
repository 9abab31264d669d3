import type { SeededRandom } from './seeded-random.js';
import type { WorkloadType } from './records.js';

const ENVIRONMENTS = { prod: 45, dev: 20, test: 15, stage: 10, qa: 5, dr: 5 } as const;

/** The role part of a name (`prod-web-017`), by workload type. */
const ROLES: Record<WorkloadType, readonly string[]> = {
  VSPHERE_VM: ['web', 'app', 'api', 'cache', 'mq', 'build', 'k8s', 'jump', 'file', 'mail'],
  MSSQL_DATABASE: ['sql'],
  LINUX_FILESET: ['lnxfs'],
  WINDOWS_FILESET: ['winfs'],
  NAS_SHARE: ['nas'],
  ORACLE_DATABASE: ['ora'],
  HYPERV_VM: ['hv'],
  AWS_EC2_INSTANCE: ['ec2'],
};

/** Realistic, unique workload names: environment, role, and a counter per prefix. */
export class WorkloadNamer {
  private readonly counters = new Map<string, number>();

  constructor(private readonly random: SeededRandom) {}

  next(type: WorkloadType): string {
    const prefix = `${this.random.weighted(ENVIRONMENTS)}-${this.random.pick(ROLES[type])}`;
    const count = (this.counters.get(prefix) ?? 0) + 1;
    this.counters.set(prefix, count);
    return `${prefix}-${String(count).padStart(3, '0')}`;
  }
}
