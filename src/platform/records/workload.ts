/**
 * A workload (a protected object: a VM, a database, ...), the same whichever interface it came
 * through. Ids are the platform-wide ones (on GraphQL, the workload's FID).
 */
export interface Workload {
  readonly id: string;
  readonly name: string;
  /** The platform's own word for its type, as it came. */
  readonly type: string;
  /** paw's kind for that word (`VSPHERE_VM`, ...); undefined when paw does not recognise it. */
  readonly kind: string | undefined;
  readonly clusterId: string | undefined;
  readonly clusterName: string | undefined;
  /** null: the workload has no SLA Domain (an on-demand snapshot without one is kept forever). */
  readonly slaDomainId: string | null | undefined;
  readonly slaDomainName: string | null | undefined;
}

export interface WorkloadFilters {
  /** Substring of the name, case-insensitive. */
  readonly name?: string | undefined;
  /** A type word (any spelling paw knows: it is matched by kind). */
  readonly type?: string | undefined;
  readonly clusterId?: string | undefined;
  readonly slaDomainId?: string | undefined;
}
