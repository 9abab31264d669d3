import { Queue, type DefaultJobOptions, type WorkerOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Settings } from '../config/settings-schema.js';
import { JOB_KINDS, type JobKind } from '../definitions/job-definition.js';
import { PAW_BACKOFF_TYPE, createBackoffStrategy } from './job-backoff.js';
import { quietQueue } from './quiet-queue.js';

/** The settings of each kind's queue. */
function queueSettingsOf(settings: Settings['queues'], kind: JobKind) {
  switch (kind) {
    case 'snapshot':
      return settings.snapshot;
    case 'sla-window':
      return settings.slaWindow;
    case 'rotate-secret':
      // Rotations run one at a time across all workers: two at once could lock an account out.
      return { name: settings.rotateSecret.name, concurrency: 1, globalConcurrency: 1 };
  }
}

/** The BullMQ queue name of each kind (from `queues.<kind>.name`). */
export function queueNameOf(settings: Settings['queues'], kind: JobKind): string {
  return queueSettingsOf(settings, kind).name;
}

/**
 * The options every paw job gets: attempts with paw's exponential backoff with jitter (see
 * job-backoff.ts), and removal of finished jobs (completed ones at once by default, failed ones by
 * age and count) so Redis stays bounded. BullMQ is the work queue, not the record: the outcome
 * store keeps what happened.
 */
export function defaultJobOptions(settings: Settings['queues']): DefaultJobOptions {
  return {
    attempts: settings.attempts,
    backoff: { type: PAW_BACKOFF_TYPE, delay: settings.backoff.baseMs },
    // Keeping none is BullMQ's `true`: the job is deleted, with no trim of a completed set.
    removeOnComplete:
      settings.keepCompleted.count === 0
        ? true
        : { age: settings.keepCompleted.ageSeconds, count: settings.keepCompleted.count },
    removeOnFail: { age: settings.keepFailed.ageSeconds, count: settings.keepFailed.count },
  };
}

/**
 * The options for a BullMQ Worker of `kind`: the key prefix, the kind's concurrency and the
 * custom backoff strategy paw's jobs name. The connection must have
 * `maxRetriesPerRequest: null` (`createRedisConnection(..., 'worker')`).
 */
export function workerOptionsFor(
  settings: Settings,
  kind: JobKind,
  connection: Redis,
): WorkerOptions {
  return {
    connection,
    prefix: settings.redis.prefix,
    concurrency: queueSettingsOf(settings.queues, kind).concurrency,
    settings: { backoffStrategy: createBackoffStrategy(settings.queues.backoff) },
  };
}

/**
 * paw's queue topology: one BullMQ queue per job kind, all under the `redis.prefix` (write it
 * as `{paw}` on Redis Cluster so each queue's keys share a slot), with paw's default job
 * options. The scheduler adds run jobs through it; processors add their own (per-item) jobs to
 * the same queues and run Workers on them with {@link workerOptionsFor}.
 */
export class RunQueues {
  private readonly queues = new Map<JobKind, Queue>();

  constructor(
    /** The queues' shared command connection (its owner quits it). */
    readonly connection: Redis,
    private readonly settings: Settings,
  ) {
    for (const kind of JOB_KINDS) {
      this.queues.set(
        kind,
        quietQueue(
          new Queue(queueNameOf(settings.queues, kind), {
            connection,
            prefix: settings.redis.prefix,
            defaultJobOptions: defaultJobOptions(settings.queues),
          }),
        ),
      );
    }
  }

  /** The queue of `kind`. */
  queue(kind: JobKind): Queue {
    const queue = this.queues.get(kind);
    if (queue === undefined) throw new Error(`no queue for kind ${kind}`);
    return queue;
  }

  /**
   * Stores each queue's global concurrency in Redis (BullMQ enforces it across all workers):
   * 1 for rotations, `queues.<kind>.globalConcurrency` where set. Idempotent; both the
   * scheduler and the workers call it at start.
   */
  async applyGlobalConcurrency(): Promise<void> {
    for (const kind of JOB_KINDS) {
      const { globalConcurrency } = queueSettingsOf(this.settings.queues, kind);
      const queue = this.queue(kind);
      if (globalConcurrency === undefined) await queue.removeGlobalConcurrency();
      else await queue.setGlobalConcurrency(globalConcurrency);
    }
  }

  /** Closes every queue (not the shared connection, which its owner quits). */
  async close(): Promise<void> {
    await Promise.allSettled([...this.queues.values()].map((queue) => queue.close()));
  }
}
