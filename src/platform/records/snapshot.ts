/** A finished snapshot of a workload. `slaDomainId` and `expirationDate` both null: kept forever. */
export interface Snapshot {
  readonly id: string;
  readonly workloadId: string | undefined;
  readonly date: string | undefined;
  readonly isOnDemand: boolean | undefined;
  readonly slaDomainId: string | null | undefined;
  readonly expirationDate: string | null | undefined;
  readonly jobId: string | undefined;
}
