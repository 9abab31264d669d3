/**
 * The Redis keys of SLA Domain maintenance windows, under `<prefix>:sla-window`. None holds a
 * secret; ids are the platform's SLA Domain and cluster ids and paw's run ids.
 */
export class WindowKeys {
  readonly base: string;

  constructor(prefix: string) {
    this.base = `${prefix}:sla-window`;
  }

  /**
   * The hold on one SLA Domain on one cluster: which windows (runs) hold it paused, until when,
   * and whether paw owns the pause (a hash; see sla-holds.ts).
   */
  hold(slaDomainId: string, clusterId: string): string {
    return `${this.base}:hold:${slaDomainId}:${clusterId}`;
  }

  /** The holds one run has taken (a hash of `slaDomainId|clusterId` → target names): what its resume releases. */
  runHolds(runId: string): string {
    return `${this.base}:run:${runId}`;
  }

  /** Set when a run's window has ended (its resume started): a late pause must not happen. */
  ended(runId: string): string {
    return `${this.base}:ended:${runId}`;
  }

  /** The lease that makes pauses and resumes of one SLA Domain take turns. */
  lease(slaDomainId: string): string {
    return `${this.base}:lease:${slaDomainId}`;
  }
}

/**
 * How long a window holds an SLA Domain's lease without renewal (it is renewed while held, and
 * expires by itself if its process dies), and how long another window waits for it before its
 * job is retried. A pause or resume under the lease takes a few platform calls.
 */
export const WINDOW_LEASE = { leaseMs: 60_000, waitMs: 120_000 } as const;
