import type { Redis } from 'ioredis';
import type { Logger } from '../../shared/logger.js';
import { GateWaiters } from './gate-waiters.js';
import type { RequestGate } from './request-gate.js';
import { acquireScript, rateLimitedScript } from './request-gate-scripts.js';

export interface SharedRequestGateOptions {
  /** A connection that waits out a Redis outage (`createRedisConnection(..., 'worker')`). */
  readonly redis: Redis;
  /** `redis.prefix`: the gate's key is `<prefix>:platform-gate`. */
  readonly prefix: string;
  /** The rate all processes together stay under (`platform.requestsPerSecond`). */
  readonly requestsPerSecond: number;
  /** Requests that may go at once after a quiet spell; a quarter of a second's worth by default. */
  readonly burst?: number;
  /** Everyone pauses this long after a 429 (500 ms), doubled for each further wave, capped. */
  readonly penaltyMs?: number;
  readonly maxPenaltyMs?: number;
  /** After a 429 the rate is halved, then recovers linearly over this long (30 s). */
  readonly recoveryMs?: number;
  /** A token due within this long is reserved rather than asked for again (200 ms). */
  readonly reserveMs?: number;
  /** Tokens due within this long of each other are let go together (200 ms; 0: one by one). */
  readonly groupMs?: number;
  readonly logger: Logger;
}

/** State older than this is forgotten (the bucket refills anyway within a second). */
const STATE_TTL_MS = 3_600_000;
/** Pause after a Redis error before trying again. */
const REDIS_RETRY_MS = 500;
/**
 * How close together the tokens let go at once are due. Each wake-up of a waiting process costs
 * CPU of its own, on the VM of BENCHMARKS.md more than the request it lets go ("What limits
 * paw": the figures per call and per night). Tokens are let go when the last of a group is due,
 * never before their time, and the bucket is asked for `burst` less what the rate brings in
 * `groupMs` (see {@link SharedRequestGate}), so the requests sent still keep to the rate and the
 * burst.
 */
const DEFAULT_GROUP_MS = 200;
/**
 * How far ahead a token may be reserved. Three processes sharing a saturated 50/s bucket are each
 * told to wait 20-60 ms; a reservation of that much turns 3.7 script calls per granted request
 * (measured on a 1,000-snapshot night) into one, and lets at most a few reserved requests past a
 * 429 that another process records meanwhile. As long as a group: one call reserves a group.
 */
const DEFAULT_RESERVE_MS = DEFAULT_GROUP_MS;
/** The most tokens one script call asks for (the callers waiting in this process, up to this). */
const MAX_TOKENS_PER_CALL = 64;

/** The gate was closed (the process is shutting down) while a request waited for it. */
class RequestGateClosedError extends Error {
  override readonly name = 'RequestGateClosedError';
}

/**
 * The platform request gate shared by every worker process through Redis: one token bucket
 * (an atomic Lua script on Redis's clock) at `platform.requestsPerSecond` for all of them
 * together, and one slow-down after a 429, whichever process saw it (see request-gate-scripts.ts).
 *
 * Within a process, callers queue first come, first served and one script call asks for a token
 * for each of them (up to 64), so a process with 50 jobs waiting pays one round trip for all the
 * tokens due within `reserveMs`, not 50. Only a token due within `reserveMs` is reserved ahead;
 * a caller told to wait longer asks again, so a 429 recorded meanwhile by another process stops
 * it too.
 *
 * Tokens due within `groupMs` of each other are let go together, when the last of them is due:
 * one timer and one wake-up for the group. Letting requests go late in groups can only add to a
 * burst, by at most what the rate brings in `groupMs`; so the bucket in Redis is kept that much
 * smaller than `burst` (at least one token), and what this gate lets through in any stretch of
 * time stays within `burst` plus the rate times its length, as without groups.
 */
export class SharedRequestGate implements RequestGate {
  private readonly key: string;
  private readonly penaltyMs: number;
  private readonly maxPenaltyMs: number;
  private readonly recoveryMs: number;
  private readonly reserveMs: number;
  private readonly groupMs: number;
  /** The bucket's size in Redis: `burst` less what the rate brings in `groupMs`. */
  private readonly bucketSize: number;
  private readonly waiters = new GateWaiters();
  private pumping = false;
  private timer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;
  /** Set at once on a 429 seen here, before Redis confirms it, so this process stops first. */
  private localPauseUntil = 0;
  private lastEpochLogged = 0;
  private lastRedisErrorLogged = 0;
  private closed = false;

  constructor(private readonly options: SharedRequestGateOptions) {
    if (!(options.requestsPerSecond > 0)) throw new RangeError('requestsPerSecond must be > 0');
    this.key = `${options.prefix}:platform-gate`;
    const burst = options.burst ?? Math.floor(options.requestsPerSecond / 4);
    this.penaltyMs = options.penaltyMs ?? 500;
    this.maxPenaltyMs = options.maxPenaltyMs ?? 8_000;
    this.recoveryMs = options.recoveryMs ?? 30_000;
    this.reserveMs = options.reserveMs ?? DEFAULT_RESERVE_MS;
    this.groupMs = options.groupMs ?? DEFAULT_GROUP_MS;
    this.bucketSize = Math.max(
      1,
      Math.floor(burst - (options.requestsPerSecond * this.groupMs) / 1000),
    );
  }

  get waiting(): number {
    return this.waiters.length;
  }

  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (this.closed)
      return Promise.reject(new RequestGateClosedError('the request gate is closed'));
    const turn = this.waiters.join(signal);
    void this.pump();
    return turn;
  }

  rateLimited(): void {
    if (this.closed) return;
    this.localPauseUntil = Math.max(this.localPauseUntil, Date.now() + this.penaltyMs);
    rateLimitedScript
      .run(
        this.options.redis,
        [this.key],
        [
          this.options.requestsPerSecond,
          this.penaltyMs,
          this.maxPenaltyMs,
          this.recoveryMs,
          STATE_TTL_MS,
        ],
      )
      .then((reply) => {
        const [pauseMs = 0, epoch = 0] = (reply as number[]).map(Number);
        if (pauseMs > 0) {
          this.lastEpochLogged = Math.max(this.lastEpochLogged, epoch);
          this.options.logger.warn(
            { pauseMs, epoch, source: 'this process' },
            'platform rate limit (429): every worker pauses, then slows down',
          );
        }
      })
      .catch((error: unknown) => this.logRedisError(error));
  }

  /** Rejects every waiting caller; later calls to `acquire` fail at once. */
  close(): void {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.wake?.();
    this.waiters.rejectAll(
      new RequestGateClosedError('the request gate closed while a request waited'),
    );
  }

  /**
   * Serves the line: asks Redis for as many tokens as callers wait (one script call), and lets
   * each caller go when its token is due. One instance runs at a time.
   */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.waiters.length > 0 && !this.closed) {
        const localWait = this.localPauseUntil - Date.now();
        if (localWait > 0) {
          await this.sleep(localWait);
          continue;
        }
        let grant: { waitsMs: number[]; retryMs: number };
        try {
          grant = await this.takeTokens(Math.min(this.waiters.length, MAX_TOKENS_PER_CALL));
        } catch (error) {
          this.logRedisError(error);
          await this.sleep(REDIS_RETRY_MS);
          continue;
        }
        if (grant.waitsMs.length === 0) {
          await this.sleep(grant.retryMs);
          continue;
        }
        await this.letGo(grant.waitsMs);
      }
    } finally {
      this.pumping = false;
    }
  }

  /**
   * Lets a caller go for each token granted, in groups: the tokens due within `groupMs` of the
   * first one left go together when the last of them is due.
   */
  private async letGo(waitsMs: readonly number[]): Promise<void> {
    const granted = Date.now();
    let next = 0;
    while (next < waitsMs.length) {
      const first = waitsMs[next] ?? 0;
      let last = next;
      while (last + 1 < waitsMs.length && (waitsMs[last + 1] ?? 0) - first <= this.groupMs) last++;
      const due = granted + (waitsMs[last] ?? 0) - Date.now();
      if (due > 0) await this.sleep(due);
      // A token is ours once its time comes, unless this process saw a 429 meanwhile: then the
      // rest are given up, and the line asks again after the pause.
      if (this.closed || this.localPauseUntil > Date.now()) return;
      for (; next <= last; next++) {
        // Every caller gave up meanwhile: the token is lost.
        if (!this.waiters.admitNext()) return;
      }
    }
  }

  private async takeTokens(wanted: number): Promise<{ waitsMs: number[]; retryMs: number }> {
    const reply = (await acquireScript.run(
      this.options.redis,
      [this.key],
      [
        this.options.requestsPerSecond,
        this.bucketSize,
        this.recoveryMs,
        STATE_TTL_MS,
        this.reserveMs,
        wanted,
      ],
    )) as number[];
    const [paused = 0, epoch = 0, slowed = 0, retryMs = 0, ...waitsMs] = reply.map(Number);
    if (slowed === 1 && epoch > this.lastEpochLogged) {
      // Another process saw the 429: this one is paused, or slowed down while the rate recovers.
      this.lastEpochLogged = epoch;
      this.options.logger.warn(
        { pauseMs: paused === 1 ? retryMs : 0, epoch, source: 'another process' },
        'platform rate limit (429): every worker pauses, then slows down',
      );
    }
    return { waitsMs, retryMs };
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.wake = undefined;
        resolve();
      }, ms);
    });
  }

  private logRedisError(error: unknown): void {
    const now = Date.now();
    if (now - this.lastRedisErrorLogged < 30_000) return;
    this.lastRedisErrorLogged = now;
    this.options.logger.warn(
      { err: { message: error instanceof Error ? error.message : String(error) } },
      'request gate: Redis did not answer; platform requests wait',
    );
  }
}
