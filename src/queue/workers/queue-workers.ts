import { Worker, type Processor, type WorkerOptions } from 'bullmq';
import { RedisErrorLog } from '../../redis/redis-error-log.js';
import type { Logger } from '../../shared/logger.js';
import type { Shutdown } from '../../shared/shutdown.js';
import { isLostLockError } from '../delayed-move.js';

/** One BullMQ Worker to run: its queue, its processor and its options. */
export interface QueueWorkerSpec<Data> {
  readonly queueName: string;
  /** Three parameters: BullMQ gives a processor that takes them an AbortSignal per job. */
  readonly processor: Processor<Data>;
  /** Connection, prefix, concurrency, lock and stall settings, backoff strategy. */
  readonly options: Omit<WorkerOptions, 'autorun'>;
  /** What names this worker in its log lines (`{ kind }`, `{ queue }`). */
  readonly fields: Readonly<Record<string, unknown>>;
}

/** What the drain at shutdown says and waits for besides the workers. */
export interface DrainOptions {
  /** The grace period, for the log line that says it is over. */
  readonly graceMs?: number;
  /** Other work of these workers that the drain waits for (start-up recoveries). */
  readonly settling?: () => readonly Promise<unknown>[];
}

/**
 * The BullMQ Workers of a process, every one created, logged and drained the same way: the job
 * kinds' workers and the notification worker. Each reports its errors (a lost lock as such, the
 * rest through the Redis error log), its failed and its stalled jobs; at shutdown they stop
 * taking jobs at once and let the active ones end, until the grace period is over and those are
 * aborted (a processor that honours its signal leaves its job to be retried).
 */
export class QueueWorkers {
  private readonly workers: Worker[] = [];

  constructor(private readonly logger: Logger) {}

  /** Creates a worker (not yet taking jobs: see {@link start}) and listens to its events. */
  add<Data>(spec: QueueWorkerSpec<Data>): void {
    const { logger } = this;
    const { fields } = spec;
    const worker = new Worker<Data>(spec.queueName, spec.processor, {
      ...spec.options,
      autorun: false,
    });
    // A worker's own (blocking) connections report here, not to the shared connection's log;
    // so does BullMQ when it cannot finish a job whose lock this worker lost.
    const redisErrors = new RedisErrorLog(logger, { ...fields, purpose: 'worker' });
    worker.on('error', (error) => {
      if (isLostLockError(error)) {
        logger.warn(
          { ...fields, reason: error.message, lockDurationMs: worker.opts.lockDuration },
          'a job outlived its lock here (this process or Redis was too slow to renew it): another worker has taken it over, and its step is repeatable',
        );
        return;
      }
      redisErrors.report(error);
    });
    worker.on('failed', (job, error) => {
      logger.warn(
        {
          ...fields,
          jobId: job?.id,
          job: job?.name,
          attemptsMade: job?.attemptsMade,
          err: { name: error.name, message: error.message },
        },
        'job failed',
      );
    });
    worker.on('stalled', (jobId) => {
      logger.warn({ ...fields, jobId }, 'job stalled (its worker died?): it runs again');
    });
    this.workers.push(worker as Worker);
  }

  /**
   * Registers the workers' drain with `shutdown` under `name`: `close()` stops taking jobs at once
   * and resolves when the active ones have ended; when the grace period is over first, the active
   * jobs are aborted.
   */
  drainOnShutdown(shutdown: Shutdown, name: string, options: DrainOptions = {}): void {
    shutdown.add(name, async (graceExpired) => {
      const abortActive = (): void => {
        this.logger.warn(
          options.graceMs === undefined ? {} : { graceMs: options.graceMs },
          'grace period over: aborting active jobs (they will be retried)',
        );
        for (const worker of this.workers) worker.cancelAllJobs('shutdown: grace period over');
      };
      if (graceExpired.aborted) abortActive();
      else graceExpired.addEventListener('abort', abortActive, { once: true });
      try {
        await Promise.all([
          ...this.workers.map((worker) => worker.close()),
          ...(options.settling?.() ?? []),
        ]);
      } finally {
        graceExpired.removeEventListener('abort', abortActive);
      }
    });
  }

  /** Starts every worker taking jobs, and resolves when each is connected. */
  async start(): Promise<void> {
    for (const worker of this.workers) {
      worker.run().catch((error: unknown) => {
        this.logger.error(
          { err: { message: error instanceof Error ? error.message : String(error) } },
          'worker stopped unexpectedly',
        );
      });
    }
    await Promise.all(this.workers.map((worker) => worker.waitUntilReady()));
  }
}
