import type { Redis } from 'ioredis';
import type { Settings } from '../../../config/settings-schema.js';
import type { JobDefinition } from '../../../definitions/job-definition.js';
import { snapshotDefinitions, type CoverageReport } from './coverage-report.js';
import type { SnapshotDefinition } from '../../../definitions/snapshot-definition.js';
import type { NotificationProducer } from '../../../queue/notifications/notification-queue.js';
import type { Logger } from '../../../shared/logger.js';
import type { Shutdown } from '../../../shared/shutdown.js';
import { wallClockAt } from '../../../shared/time-zone.js';
import { buildCoverageDigest } from './coverage-digest.js';

/** How often a process looks whether a digest is due (a digest is at most this late). */
const CHECK_MS = 60_000;
/** How long a claim to build a digest lasts: a claimant that died is replaced after it. */
const CLAIM_MS = 600_000;

export interface CoverageDigestsOptions {
  readonly settings: Settings;
  /** For the claims, `<prefix>:notifications:digest:<definitionId>:<day>`. */
  readonly redis: Redis;
  readonly producer: NotificationProducer;
  /** The definitions loaded now. */
  readonly definitions: () => readonly JobDefinition[];
  /** `coverageReport` of these definitions (src/job-kinds/snapshot/coverage/coverage-report.ts) at `now`. */
  readonly coverage: (
    definitions: readonly SnapshotDefinition[],
    now: Date,
  ) => Promise<CoverageReport>;
  readonly logger: Logger;
  readonly shutdown: Shutdown;
}

/**
 * The morning digest: once a day, at `coverage.digest.at` on the wall clock of
 * `coverage.digest.timezone` (or at the first check after it, for a process started later that
 * day), each enabled snapshot definition with `notify.webhook` gets one message with its
 * coverage. Replicas claim each definition's day in Redis (SET NX) before computing it, and the
 * digest goes through the notification queue under one job id per definition and day, so one
 * message goes out however many replicas check; the notification service sends it like a run
 * summary (retried with its backoff, marked sent).
 */
export class CoverageDigests {
  private readonly atMinute: number;
  /** The day each definition's digest was last queued or found claimed, in this process. */
  private readonly done = new Map<string, string>();

  constructor(private readonly options: CoverageDigestsOptions) {
    const [hour, minute] = options.settings.coverage.digest.at.split(':').map(Number);
    this.atMinute = (hour ?? 0) * 60 + (minute ?? 0);
  }

  /** Queues the digests due at `nowMs` that no replica has claimed; resolves to how many. */
  async sendDue(nowMs: number): Promise<number> {
    const { settings, redis } = this.options;
    const digest = settings.coverage.digest;
    if (!digest.enabled) return 0;
    const wall = wallClockAt(nowMs, digest.timezone);
    if (wall.hour * 60 + wall.minute < this.atMinute) return 0;
    const day = `${wall.year}-${String(wall.month).padStart(2, '0')}-${String(wall.day).padStart(2, '0')}`;
    const claimed: SnapshotDefinition[] = [];
    for (const definition of snapshotDefinitions(this.options.definitions())) {
      if (!definition.enabled || definition.notify?.webhook === undefined) continue;
      if (this.done.get(definition.id) === day) continue;
      if (
        (await redis.set(this.claimKey(definition.id, day), '1', 'PX', CLAIM_MS, 'NX')) === 'OK'
      ) {
        claimed.push(definition);
      } else {
        this.done.set(definition.id, day);
      }
    }
    if (claimed.length === 0) return 0;
    try {
      const report = await this.options.coverage(claimed, new Date(nowMs));
      for (const coverage of report.definitions) {
        const body = buildCoverageDigest(coverage, day, report.generatedAt, digest.maxListed);
        await this.options.producer.digestDue({
          definitionId: coverage.definitionId,
          day,
          body: { ...body },
        });
        // Kept past the day: a replica started later that day finds it and adds nothing.
        await redis.set(this.claimKey(coverage.definitionId, day), 'queued', 'PX', 2 * 86_400_000);
        this.done.set(coverage.definitionId, day);
      }
      return report.definitions.length;
    } catch (error) {
      // Let the next check (here or on another replica) try again.
      for (const definition of claimed) {
        if (this.done.get(definition.id) !== day)
          await redis.del(this.claimKey(definition.id, day));
      }
      throw error;
    }
  }

  private claimKey(definitionId: string, day: string): string {
    return `${this.options.settings.redis.prefix}:notifications:digest:${definitionId}:${day}`;
  }
}

/** {@link CoverageDigests} checked every minute until the shutdown (when digests are enabled). */
export function startCoverageDigests(options: CoverageDigestsOptions): void {
  const { logger, shutdown } = options;
  if (!options.settings.coverage.digest.enabled) return;
  const digests = new CoverageDigests(options);
  const check = (): void => {
    digests.sendDue(Date.now()).catch((error: unknown) => {
      if (shutdown.signal.aborted) return;
      logger.warn(
        { err: { message: error instanceof Error ? error.message : String(error) } },
        'could not queue the coverage digests; will try again',
      );
    });
  };
  const timer = setInterval(check, CHECK_MS);
  timer.unref();
  shutdown.add('coverage digests', () => clearInterval(timer));
  check();
}
