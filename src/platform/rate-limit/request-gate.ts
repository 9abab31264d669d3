/**
 * What every request to the platform passes before it is sent. The in-process implementation is
 * {@link TokenBucketGate}; the worker plugs in one shared through Redis so that all of its
 * processes together stay under the platform's rate limit.
 */
export interface RequestGate {
  /** Resolves when the caller may send one request; rejects with the signal's reason on abort. */
  acquire(signal?: AbortSignal): Promise<void>;
  /**
   * Called when the platform answered 429: the gate slows down *every* caller, not only the one
   * that was refused, since they all share the platform's budget.
   */
  rateLimited(): void;
  /**
   * Callers of this process waiting for their turn now: what a snapshot lane keeps filled, so
   * that the rate is used whatever the platform's latency (src/job-kinds/snapshot/lanes/
   * lane-timing.ts).
   */
  readonly waiting: number;
}
