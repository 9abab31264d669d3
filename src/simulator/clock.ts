/**
 * The simulator's notion of time. Timestamps are always real wall-clock time; the time scale
 * only shrinks durations (job phases, token and session lifetimes), so a client needs no
 * knowledge of it (docs/platform-model.md, "Addresses and time").
 */
export class SimulatorClock {
  constructor(
    /** How many times faster platform time runs than real time. */
    readonly timeScale: number,
    private readonly wallClock: () => number = Date.now,
  ) {}

  /** Real time, epoch milliseconds. */
  now(): number {
    return this.wallClock();
  }

  /** How many real milliseconds `seconds` of platform time last. */
  realMs(platformSeconds: number): number {
    return (platformSeconds * 1000) / this.timeScale;
  }

  /**
   * A lifetime in real time, as reported to clients in whole seconds. A lifetime that would
   * shrink below one real second is stretched to one, so that `expires_in` is never 0 and the
   * reported and the enforced lifetimes agree.
   */
  reportedLifetime(platformSeconds: number): { seconds: number; ms: number } {
    const seconds = Math.max(1, Math.floor(this.realMs(platformSeconds) / 1000));
    return { seconds, ms: Math.max(seconds * 1000, this.realMs(platformSeconds)) };
  }
}

/** ISO 8601 UTC, as every timestamp the platform reports. */
export function isoTime(epochMs: number): string {
  return new Date(epochMs).toISOString();
}
