import type { Redis } from 'ioredis';
import type { Logger } from '../../shared/logger.js';
import type { PlatformObserver } from '../platform-observer.js';
import { openSubsystemConnection, type ProcessParts } from '../../redis/redis-connection.js';

const SECOND_MS = 1000;
const HOUR_MS = 3_600_000;
/** Hours read at most for one picture: a run longer than a week shows its first week of 429s. */
const MAX_HOURS_READ = 7 * 24;
/** A failure to record is logged at most this often: the platform call it observes goes on. */
const ERROR_LOG_INTERVAL_MS = 60_000;

/**
 * How many 429s the platform answered paw, second by second, kept in Redis so the dashboard can
 * draw them under a run's progress (a demo's run lasts seconds, a night's hours). Prometheus has the same count (`paw_platform_rate_limited_total`),
 * but per process and only where Prometheus runs; this record is shared by every worker and is
 * there wherever Redis is.
 *
 * One hash per hour (`<prefix>:ops:rate-limited:<hour start ms>`, second start ms → count), each
 * expiring with the outcome records (`outcomes.retentionDays`): an hour of 429s in every second
 * is 3,600 small fields, and seconds without one take nothing. The 429s are the account's, not one run's: every run that overlaps a
 * minute shares its count.
 */
export class RateLimitRecord {
  private lastErrorLogged = 0;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlSeconds: number,
    private readonly logger?: Logger,
  ) {}

  /** Counts a 429 answered at `at`, in the background: never delays or fails the caller. */
  record(at: Date): void {
    const second = Math.floor(at.getTime() / SECOND_MS) * SECOND_MS;
    const key = this.hourKey(second);
    this.redis
      .multi()
      .hincrby(key, String(second), 1)
      .expire(key, this.ttlSeconds)
      .exec()
      .catch((error: unknown) => {
        const now = Date.now();
        if (now - this.lastErrorLogged < ERROR_LOG_INTERVAL_MS) return;
        this.lastErrorLogged = now;
        this.logger?.warn(
          { err: { message: error instanceof Error ? error.message : String(error) } },
          'could not record a platform 429 for the dashboard',
        );
      });
  }

  /** The observer that records each 429 the platform client sees. */
  observer(): PlatformObserver {
    return {
      onCall: (event) => {
        if (event.status === 429) this.record(new Date());
      },
    };
  }

  /** 429s per second from `from` to `to` (second start ms → count; seconds without any absent). */
  async between(from: Date, to: Date): Promise<Map<number, number>> {
    const first = Math.floor(from.getTime() / HOUR_MS) * HOUR_MS;
    const last = Math.min(to.getTime(), first + MAX_HOURS_READ * HOUR_MS);
    const pipeline = this.redis.pipeline();
    for (let hour = first; hour <= last; hour += HOUR_MS) pipeline.hgetall(this.hourKey(hour));
    const replies = (await pipeline.exec()) ?? [];
    const counts = new Map<number, number>();
    for (const [error, hash] of replies) {
      if (error !== null) throw error;
      for (const [second, count] of Object.entries(hash as Record<string, string>)) {
        const at = Number(second);
        if (at + SECOND_MS <= from.getTime() || at > to.getTime()) continue;
        counts.set(at, (counts.get(at) ?? 0) + Number(count));
      }
    }
    return counts;
  }

  private hourKey(ms: number): string {
    return `${this.prefix}:ops:rate-limited:${Math.floor(ms / HOUR_MS) * HOUR_MS}`;
  }
}

/**
 * The record of 429s for a worker process: its own Redis connection, registered with the
 * shutdown. Open it before the workers, so it closes after them.
 */
export async function openRateLimitRecord(options: ProcessParts): Promise<RateLimitRecord> {
  const { settings } = options;
  const { redis, logger } = await openSubsystemConnection(
    options,
    'rate-limit-record',
    'service',
    '429 record',
  );
  return new RateLimitRecord(
    redis,
    settings.redis.prefix,
    settings.outcomes.retentionDays * 86_400,
    logger,
  );
}
