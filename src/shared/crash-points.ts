/**
 * Named places in paw's code where a crash is most dangerous (between a side effect on the
 * platform and the record of it, between writing a secret and switching to it). Tests and the
 * chaos suite name one with the `debug.crashAt` setting (`PAW_CRASH_AT`), and the process kills
 * itself with SIGKILL when it gets there, so that "a crash at this exact step loses nothing" is
 * something a test can prove instead of hope.
 *
 * A point is named `area.step` (e.g. `rotate.after-platform-call`), optionally `@n` for the n-th
 * time it is reached in this process. With no crash point configured, `reach` does nothing.
 */
export class CrashPoints {
  private readonly targets = new Map<string, number>();
  private readonly reached = new Map<string, number>();

  constructor(specs: readonly string[]) {
    for (const spec of specs) {
      const [name = '', count] = spec.split('@');
      this.targets.set(name, count === undefined ? 1 : Number(count));
    }
  }

  /** Marks that execution got to `name`; dies here if this is the configured crash point. */
  reach(name: string): void {
    const target = this.targets.get(name);
    if (target === undefined) return;
    const times = (this.reached.get(name) ?? 0) + 1;
    this.reached.set(name, times);
    if (times === target) {
      // No cleanup, no flush, no exit handlers: exactly what a power cut or an OOM kill does.
      process.kill(process.pid, 'SIGKILL');
    }
  }
}

/** Crash points that never fire, for code run outside a worker (commands, tests of parts). */
export const NO_CRASH_POINTS = new CrashPoints([]);
