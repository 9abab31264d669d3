import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Settings } from '../../config/settings-schema.js';
import { quietQueue } from '../quiet-queue.js';
import type { Logger } from '../../shared/logger.js';
import { PAW_BACKOFF_TYPE } from '../job-backoff.js';

/** The BullMQ queue of notifications, under `redis.prefix` (reserved: no job kind may use it). */
export const NOTIFY_QUEUE_NAME = 'notify';

/** The job name and data of a notification: the run only, never a URL. */
const NOTIFY_JOB_NAME = 'run-ended';
const DIGEST_JOB_NAME = 'coverage-digest';

/**
 * A definition's morning digest of coverage (src/job-kinds/snapshot/coverage/coverage-digest.ts builds `body`, the
 * message to post; the webhook is looked up by `definitionId` where it is sent, never carried).
 */
export interface DigestJobData {
  readonly definitionId: string;
  /** The day it is for, `YYYY-MM-DD` on the digest's wall clock. */
  readonly day: string;
  readonly body: Readonly<Record<string, unknown>>;
}

export type NotifyJobData = { readonly runId: string } | { readonly digest: DigestJobData };

/** The job id of a run's notification: one per run, however often its end is reported. */
function notifyJobId(runId: string): string {
  return `notify-${runId}`;
}

/** Attempts, paw's exponential backoff with jitter, and bounded retention of finished jobs. */
function notifyJobOptions(settings: Settings['notifications']): JobsOptions {
  return {
    attempts: settings.attempts,
    backoff: { type: PAW_BACKOFF_TYPE, delay: settings.backoffBaseMs },
    // Kept a week so that a late second report of the same run end adds nothing.
    removeOnComplete: { age: 7 * 86_400, count: 10_000 },
    removeOnFail: { age: 30 * 86_400, count: 10_000 },
  };
}

/** The notification queue on `connection` (the caller closes it; the connection is its owner's). */
export function createNotifyQueue(connection: Redis, settings: Settings): Queue<NotifyJobData> {
  return quietQueue(
    new Queue<NotifyJobData>(NOTIFY_QUEUE_NAME, {
      connection,
      prefix: settings.redis.prefix,
      defaultJobOptions: notifyJobOptions(settings.notifications),
    }),
  );
}

/**
 * Reports run ends to the notification queue. Never blocks or fails the caller: the job is
 * added in the background, and a failure to add it is logged (the run's outcome is recorded
 * either way; only its notification is lost).
 */
export class NotificationProducer {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly queue: Queue<NotifyJobData>,
    private readonly logger: Logger,
  ) {}

  /** A run ended (or was recorded as missed): its notification, if any, will be sent. */
  runEnded(runId: string): void {
    const adding = this.queue
      .add(NOTIFY_JOB_NAME, { runId }, { jobId: notifyJobId(runId) })
      .then(
        () => undefined,
        (error: unknown) => {
          this.logger.warn(
            { runId, err: { message: error instanceof Error ? error.message : String(error) } },
            'could not queue the notification of a run',
          );
        },
      )
      .finally(() => this.pending.delete(adding));
    this.pending.add(adding);
  }

  /**
   * Queues a definition's digest of `day`: one job per definition and day however many replicas
   * add it (its job id). Resolves once added; throws when it could not be.
   */
  async digestDue(digest: DigestJobData): Promise<void> {
    await this.queue.add(
      DIGEST_JOB_NAME,
      { digest },
      { jobId: `digest-${digest.definitionId}-${digest.day}` },
    );
  }

  /** Waits for the notifications being added (at shutdown, before the connection closes). */
  async flush(): Promise<void> {
    await Promise.all([...this.pending]);
  }
}
