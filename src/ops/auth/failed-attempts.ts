/** A client's attempts in its current window. */
interface Window {
  readonly startedAt: number;
  attempts: number;
}

/**
 * Failed credential attempts per client (its address), in fixed windows: a client with `limit`
 * attempts in its window is refused until the window ends. An attempt counts from when it
 * begins, and a success takes it back, so a client that sends many guesses at once gets no more
 * checked than one that sends them in turn. At most `maxClients` are remembered (the oldest
 * forgotten first), so a flood of addresses costs bounded memory. Nothing installed counts
 * failures (@fastify/rate-limit, not installed, counts every request), hence this.
 */
export class FailedAttempts {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly maxClients = 10_000,
  ) {}

  /** Seconds until `client` may try again; 0 when it may now. */
  retryAfterSeconds(client: string, now = Date.now()): number {
    const window = this.current(client, now);
    if (window === undefined || window.attempts < this.limit) return 0;
    return Math.max(1, Math.ceil((window.startedAt + this.windowMs - now) / 1000));
  }

  /** Counts an attempt of `client` as it begins: a failure unless {@link succeeded} follows. */
  begin(client: string, now = Date.now()): void {
    const window = this.current(client, now);
    if (window !== undefined) {
      window.attempts += 1;
      return;
    }
    if (this.windows.size >= this.maxClients) this.forgetOldest(now);
    this.windows.set(client, { startedAt: now, attempts: 1 });
  }

  /** Takes back an attempt of `client` that succeeded (or was never checked). */
  succeeded(client: string): void {
    const window = this.windows.get(client);
    if (window !== undefined && window.attempts > 0) window.attempts -= 1;
  }

  private current(client: string, now: number): Window | undefined {
    const window = this.windows.get(client);
    if (window === undefined || now - window.startedAt < this.windowMs) return window;
    this.windows.delete(client);
    return undefined;
  }

  /** Forgets every ended window, or else the oldest one. */
  private forgetOldest(now: number): void {
    for (const [client, window] of this.windows) {
      if (now - window.startedAt >= this.windowMs) this.windows.delete(client);
    }
    if (this.windows.size < this.maxClients) return;
    const oldest = this.windows.keys().next();
    if (oldest.done !== true) this.windows.delete(oldest.value);
  }
}
