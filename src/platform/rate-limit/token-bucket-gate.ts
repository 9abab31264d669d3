import { GateWaiters } from './gate-waiters.js';
import type { RequestGate } from './request-gate.js';

export interface TokenBucketGateOptions {
  /** Sustained rate; paw's default is 40, under the platform's published 50. */
  readonly requestsPerSecond: number;
  /** Requests that may go at once after a quiet spell; a quarter of a second's worth by default. */
  readonly burst?: number;
  /** Everyone waits this long after a 429 (500 ms); doubled for each further 429 in a row, capped. */
  readonly penaltyMs?: number;
  readonly maxPenaltyMs?: number;
  /**
   * After a 429 the rate is halved, then climbs back linearly to the configured rate over this
   * long (30 s by default): slowly enough that a platform whose budget others share too is not
   * hit again at once.
   */
  readonly recoveryMs?: number;
  readonly now?: () => number;
}

/**
 * The in-process request gate: a token bucket that serves callers first come, first served. A
 * 429 from the platform pauses every caller for a moment and halves the rate, which then
 * recovers linearly (additive increase, multiplicative decrease), so a storm of 429s turns into
 * a slower steady flow instead of a retry stampede.
 */
export class TokenBucketGate implements RequestGate {
  private readonly configuredRate: number;
  private readonly burst: number;
  private readonly penaltyMs: number;
  private readonly maxPenaltyMs: number;
  private readonly recoveryMs: number;
  private readonly now: () => number;

  private tokens: number;
  private lastRefill: number;
  private pausedUntil = 0;
  private limitedAt: number | undefined;
  private reducedRate: number;
  private consecutiveLimits = 0;
  private lastPenaltyMs = 0;
  private readonly waiters = new GateWaiters();
  private timer: NodeJS.Timeout | undefined;

  get waiting(): number {
    return this.waiters.length;
  }

  constructor(options: TokenBucketGateOptions) {
    if (!(options.requestsPerSecond > 0)) throw new RangeError('requestsPerSecond must be > 0');
    this.configuredRate = options.requestsPerSecond;
    this.burst = Math.max(1, options.burst ?? Math.floor(options.requestsPerSecond / 4));
    this.penaltyMs = options.penaltyMs ?? 500;
    this.maxPenaltyMs = options.maxPenaltyMs ?? 8_000;
    this.recoveryMs = options.recoveryMs ?? 30_000;
    this.now = options.now ?? Date.now;
    this.tokens = this.burst;
    this.lastRefill = this.now();
    this.reducedRate = this.configuredRate;
  }

  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (this.waiters.length === 0 && this.tryTake()) return Promise.resolve();
    const turn = this.waiters.join(signal);
    this.schedule();
    return turn;
  }

  rateLimited(): void {
    const now = this.now();
    // 429s that arrive during the pause answer requests sent before it: one wave, one slowdown.
    if (now < this.pausedUntil) return;
    // A 429 soon after the last pause ended means the pressure goes on: pause longer each time.
    const inARow = this.limitedAt !== undefined && now - this.pausedUntil < this.lastPenaltyMs;
    this.consecutiveLimits = inARow ? this.consecutiveLimits + 1 : 1;
    this.reducedRate = Math.max(this.configuredRate / 16, this.currentRate(now) / 2);
    this.limitedAt = now;
    this.lastPenaltyMs = Math.min(
      this.maxPenaltyMs,
      this.penaltyMs * 2 ** (this.consecutiveLimits - 1),
    );
    this.pausedUntil = now + this.lastPenaltyMs;
    this.tokens = 0;
    this.reschedule();
  }

  /** The rate callers get right now (for diagnostics and tests). */
  currentRate(now: number = this.now()): number {
    if (this.limitedAt === undefined) return this.configuredRate;
    const elapsed = now - Math.max(this.limitedAt, this.pausedUntil);
    if (elapsed <= 0) return this.reducedRate;
    if (elapsed >= this.recoveryMs) return this.configuredRate;
    return (
      this.reducedRate + (this.configuredRate - this.reducedRate) * (elapsed / this.recoveryMs)
    );
  }

  private tryTake(): boolean {
    const now = this.now();
    if (now < this.pausedUntil) {
      this.lastRefill = now;
      return false;
    }
    // Nothing accrues during a pause: it ends with an empty bucket, not a burst.
    const elapsed = Math.max(0, now - Math.max(this.lastRefill, this.pausedUntil));
    this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.currentRate(now)) / 1000);
    this.lastRefill = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  private millisecondsUntilNextToken(): number {
    const now = this.now();
    if (now < this.pausedUntil) return this.pausedUntil - now;
    return Math.max(1, Math.ceil(((1 - this.tokens) * 1000) / this.currentRate(now)));
  }

  private schedule(): void {
    if (this.timer !== undefined || this.waiters.length === 0) return;
    this.timer = setTimeout(() => this.pump(), this.millisecondsUntilNextToken());
  }

  private reschedule(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.schedule();
  }

  private pump(): void {
    this.timer = undefined;
    while (this.waiters.length > 0 && this.tryTake()) {
      if (!this.waiters.admitNext()) break;
    }
    this.schedule();
  }
}
