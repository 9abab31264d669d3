import { performance } from 'node:perf_hooks';

/**
 * The gateway's token bucket across the platform API: `requestsPerSecond` tokens flow in, up to
 * `burst`; a request without a token gets a bare 429. A rate of 0 turns it off.
 */
export class TokenBucket {
  private tokens: number;
  private updatedAt: number;
  private rate = 0;
  private capacity = 0;

  constructor(
    requestsPerSecond: number,
    burst: number | undefined,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.configure(requestsPerSecond, burst);
    this.tokens = this.capacity;
    this.updatedAt = this.now();
  }

  get requestsPerSecond(): number {
    return this.rate;
  }

  get burst(): number {
    return this.capacity;
  }

  configure(requestsPerSecond: number, burst: number | undefined): void {
    this.rate = requestsPerSecond;
    this.capacity = burst ?? Math.max(1, requestsPerSecond);
    this.tokens = this.capacity;
    this.updatedAt = this.now();
  }

  /** Takes a token if one is there. */
  tryTake(): boolean {
    if (this.rate === 0) return true;
    const now = this.now();
    this.tokens = Math.min(
      this.capacity,
      this.tokens + ((now - this.updatedAt) / 1000) * this.rate,
    );
    this.updatedAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
