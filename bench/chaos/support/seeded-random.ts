/**
 * A small seeded random number generator (mulberry32), so that a chaos run that found something
 * can be replayed: the scenario prints its seed, and `CHAOS_SEED=<seed>` repeats its choices
 * (the kill times still land where the machine's speed puts them).
 */
export class SeededRandom {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** The seed from `CHAOS_SEED`, or a fresh one. */
  static fromEnvironment(): SeededRandom {
    const given = Number(process.env['CHAOS_SEED']);
    return new SeededRandom(
      Number.isInteger(given) && given > 0 ? given : Math.floor(Math.random() * 2 ** 31) + 1,
    );
  }

  /** A number in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** A number in [low, high). */
  between(low: number, high: number): number {
    return low + (high - low) * this.next();
  }

  /** One element of a non-empty list. */
  pick<T>(list: readonly T[]): T {
    const chosen = list[Math.floor(this.next() * list.length)];
    if (chosen === undefined) throw new Error('pick from an empty list');
    return chosen;
  }
}
