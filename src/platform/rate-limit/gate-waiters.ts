interface Waiter {
  readonly resolve: () => void;
  readonly reject: (reason: unknown) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

/**
 * The callers waiting at a request gate, first come, first served: each waits on a promise that
 * the gate resolves when its turn comes, or that rejects when its signal aborts (it leaves the
 * line) or the gate closes. Both gates (TokenBucketGate in process, SharedRequestGate through
 * Redis) keep their line here; they differ only in where the tokens come from.
 */
export class GateWaiters {
  private readonly waiters: Waiter[] = [];

  get length(): number {
    return this.waiters.length;
  }

  /** A place in line for a caller; resolves when {@link admitNext} reaches it. */
  join(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          const index = this.waiters.indexOf(waiter);
          if (index >= 0) this.waiters.splice(index, 1);
          reject(signal?.reason as Error);
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Lets the first caller in line go; false when nobody waits (the turn is lost). */
  admitNext(): boolean {
    const waiter = this.waiters.shift();
    if (waiter === undefined) return false;
    waiter.signal?.removeEventListener('abort', waiter.onAbort);
    waiter.resolve();
    return true;
  }

  /** Rejects every caller in line with `error` (the gate closed). */
  rejectAll(error: Error): void {
    for (const waiter of this.waiters.splice(0)) {
      waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.reject(error);
    }
  }
}
