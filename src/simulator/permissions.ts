/** What a role allows; each operation needs one of these. */
const PERMISSIONS = [
  /** Read workloads, snapshots, jobs, SLA Domains, clusters and events. */
  'VIEW_INVENTORY',
  /** Take on-demand snapshots. */
  'TAKE_SNAPSHOT',
  /** Create, change, assign, pause and resume SLA Domains. */
  'MANAGE_SLA',
  /** Read service accounts and roles. */
  'VIEW_ACCESS',
  /** Create, rotate, delete service accounts and assign roles. */
  'MANAGE_ACCESS',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export interface SimRole {
  readonly id: string;
  readonly name: string;
  readonly permissions: ReadonlySet<Permission>;
}

/** The seeded roles: one administrator, one read-only, and narrow ones for least privilege. */
export const ROLE_TEMPLATES: readonly { name: string; permissions: readonly Permission[] }[] = [
  { name: 'Administrator', permissions: PERMISSIONS },
  { name: 'Read Only Admin', permissions: ['VIEW_INVENTORY', 'VIEW_ACCESS'] },
  { name: 'Snapshot Operator', permissions: ['VIEW_INVENTORY', 'TAKE_SNAPSHOT'] },
  { name: 'SLA Maintenance Operator', permissions: ['VIEW_INVENTORY', 'MANAGE_SLA'] },
  { name: 'Service Account Manager', permissions: ['VIEW_ACCESS', 'MANAGE_ACCESS'] },
];
