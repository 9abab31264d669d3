/**
 * A small, fast, seedable pseudo-random generator (sfc32, seeded through splitmix32), so that a
 * simulator started with the same seed builds the same inventory and draws the same job
 * durations in the same order. Not for secrets: those come from `node:crypto`.
 */
export class SeededRandom {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let state = seed >>> 0;
    const splitmix = (): number => {
      state = (state + 0x9e3779b9) | 0;
      let z = state;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = splitmix();
    this.b = splitmix();
    this.c = splitmix();
    this.d = splitmix();
    // The first outputs of sfc32 are weakly mixed; discard a few.
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  /** A derived, independent generator: one stream per purpose keeps streams stable. */
  fork(label: string): SeededRandom {
    let hash = this.nextUint32();
    for (let i = 0; i < label.length; i++) hash = Math.imul(hash ^ label.charCodeAt(i), 0x01000193);
    return new SeededRandom(hash >>> 0);
  }

  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Uniform integer in [min, max] (both inclusive). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  /** One key of a table of weights, with probability proportional to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weights) as [K, number][];
    const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
    let draw = this.next() * total;
    for (const [key, weight] of entries) {
      draw -= weight;
      if (draw < 0) return key;
    }
    const last = entries.at(-1);
    if (last === undefined) throw new Error('weighted draw from an empty table');
    return last[0];
  }

  /** Standard normal (Box-Muller). */
  normal(): number {
    const u = 1 - this.next(); // (0, 1]: log(0) is not a number
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Lognormal with the given median and sigma (of the underlying normal). */
  lognormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal());
  }

  /** A version-4-shaped UUID drawn from this stream. */
  uuid(): string {
    const hex = (value: number): string => value.toString(16).padStart(8, '0');
    const a = hex(this.nextUint32());
    const b = hex(this.nextUint32());
    const c = hex(this.nextUint32());
    const d = hex(this.nextUint32());
    const variant = ((parseInt(c.slice(0, 1), 16) & 0x3) | 0x8).toString(16);
    return `${a}-${b.slice(0, 4)}-4${b.slice(5, 8)}-${variant}${c.slice(1, 4)}-${c.slice(4, 8)}${d}`;
  }
}
