import type { Logger } from './logger.js';

/** A resource to release at shutdown. It receives a signal that fires when the grace period ends. */
export type Cleanup = (graceExpired: AbortSignal) => Promise<void> | void;

export interface ShutdownOptions {
  readonly logger: Logger;
  /** How long cleanups may take before their `graceExpired` signal fires; 30 s by default. */
  readonly graceMs?: number;
  /** Called on a second signal, or when cleanups overrun twice the grace period. */
  readonly forceExit?: (code: number) => void;
}

/**
 * Shutdown as a protocol (after graphile-worker's `main.ts`): resources are registered in the
 * order they were opened and released last-opened first; every cleanup runs even if an earlier
 * one throws. The first SIGINT/SIGTERM starts an orderly shutdown; a second one forces exit.
 */
export class Shutdown {
  private readonly cleanups: { name: string; cleanup: Cleanup }[] = [];
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;
  private readonly graceMs: number;
  private readonly forceExit: (code: number) => void;
  private readonly onSignal = (signal: NodeJS.Signals): void => this.handleSignal(signal);

  constructor(private readonly options: ShutdownOptions) {
    this.graceMs = options.graceMs ?? 30_000;
    this.forceExit = options.forceExit ?? ((code) => process.exit(code));
  }

  /** Fires when shutdown begins: long-running loops should stop taking new work. */
  get signal(): AbortSignal {
    return this.stopping.signal;
  }

  /** Registers a resource; resources are released in reverse order of registration. */
  add(name: string, cleanup: Cleanup): void {
    this.cleanups.push({ name, cleanup });
  }

  /** Listens for SIGINT and SIGTERM. */
  installSignalHandlers(): void {
    process.on('SIGINT', this.onSignal);
    process.on('SIGTERM', this.onSignal);
  }

  /** Releases every registered resource once; later calls return the same promise. */
  run(reason: string): Promise<void> {
    this.running ??= this.release(reason);
    return this.running;
  }

  private handleSignal(signal: NodeJS.Signals): void {
    if (this.running === undefined) {
      this.options.logger.info({ signal }, 'shutting down; send the signal again to force');
      void this.run(signal);
      return;
    }
    this.options.logger.warn({ signal }, 'second signal: forcing exit');
    this.forceExit(signal === 'SIGINT' ? 130 : 143);
  }

  private async release(reason: string): Promise<void> {
    this.stopping.abort(new Error(`shutdown: ${reason}`));
    const grace = new AbortController();
    const graceTimer = setTimeout(() => grace.abort(new Error('grace period over')), this.graceMs);
    const hardTimer = setTimeout(() => {
      this.options.logger.error({ graceMs: this.graceMs }, 'cleanups overran; forcing exit');
      this.forceExit(1);
    }, this.graceMs * 2);
    hardTimer.unref();
    try {
      for (const { name, cleanup } of [...this.cleanups].reverse()) {
        try {
          await cleanup(grace.signal);
        } catch (error) {
          this.options.logger.error({ err: error, resource: name }, 'cleanup failed');
        }
      }
    } finally {
      clearTimeout(graceTimer);
      clearTimeout(hardTimer);
      process.removeListener('SIGINT', this.onSignal);
      process.removeListener('SIGTERM', this.onSignal);
    }
  }
}
