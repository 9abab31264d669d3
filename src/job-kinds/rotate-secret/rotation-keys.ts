/**
 * The Redis keys of secret rotation, under `<prefix>:rotate-secret`. They hold paths and client
 * ids, never a secret or a token (those live only in the sink and its journal).
 */
export class RotationKeys {
  readonly base: string;

  constructor(prefix: string) {
    this.base = `${prefix}:rotate-secret`;
  }

  /**
   * Sinks whose rotation may be unfinished (a hash: sink path → client id), so that a worker
   * starting up knows which journals to look for. An entry is added before a journal is written
   * and removed after it is deleted.
   */
  journals(): string {
    return `${this.base}:journals`;
  }

  /** The lease that makes every rotation of one account, and its recovery, take turns. */
  lease(clientId: string): string {
    return `${this.base}:lease:${clientId}`;
  }
}

/**
 * How long a rotation holds its account's lease without renewal (renewed while it runs; it
 * expires by itself if the process dies), and how long another waits for it.
 */
export const ROTATION_LEASE = { leaseMs: 60_000, waitMs: 150_000 } as const;
