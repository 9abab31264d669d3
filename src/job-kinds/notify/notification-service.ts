import { UnrecoverableError, type Job } from 'bullmq';
import type { Settings } from '../../config/settings-schema.js';
import type { DefinitionSet } from '../../definitions/definition-set.js';
import type { JobDefinition } from '../../definitions/job-definition.js';
import type { Shutdown } from '../../shared/shutdown.js';
import type { Logger } from '../../shared/logger.js';
import { createBackoffStrategy } from '../../queue/job-backoff.js';
import { Outcomes } from '../../outcomes/outcomes.js';
import { openSubsystemConnection } from '../../redis/redis-connection.js';
import {
  NOTIFY_QUEUE_NAME,
  type NotificationProducer,
  type NotifyJobData,
} from '../../queue/notifications/notification-queue.js';
import { notificationProducerOn } from '../../queue/notifications/open-notification-producer.js';
import { RunNotifier, type NotificationResult } from './run-notifier.js';
import { WebhookDeliveryError, WebhookSender } from './webhook-sender.js';
import { toJobError } from '../job-failure.js';
import { failureVerdict } from '../settle-failure.js';
import { attemptNumber } from '../../queue/step-job.js';
import { QueueWorkers } from '../../queue/workers/queue-workers.js';

export interface NotificationServiceOptions {
  readonly settings: Settings;
  /** This process's definitions: notifications are sent for these (their webhook URLs live here). */
  readonly definitions: DefinitionSet | readonly JobDefinition[];
  readonly logger: Logger;
  readonly shutdown: Shutdown;
  readonly userAgent: string;
  /** Told how each notification job ended (metrics). */
  readonly onResult?: (result: NotificationResult) => void;
  /** The process's outcomes, to read the runs to report; the service's own connection's without. */
  readonly outcomes?: Outcomes;
  /** The process's producer of notifications, if it opened one; else the service opens its own. */
  readonly producer?: NotificationProducer;
}

export interface NotificationService {
  /** Reports run ends (the scheduler's missed fires; the worker's finished runs). */
  readonly producer: NotificationProducer;
}

/**
 * Sends run summaries to the definitions' webhooks: a BullMQ Worker on the `notify` queue, one
 * delivery at a time per process, retried with paw's exponential backoff. Runs in the processes
 * that load the job definitions (`paw scheduler`, `paw start`), because a webhook URL never
 * leaves them. Stopped by the shutdown (the worker drains first, then the connection closes).
 */
export async function startNotificationService(
  options: NotificationServiceOptions,
): Promise<NotificationService> {
  const { settings, shutdown } = options;
  const { redis, logger } = await openSubsystemConnection(
    options,
    'notifications',
    'worker',
    'notifications',
  );
  const producer =
    options.producer ?? notificationProducerOn(redis, { settings, logger, shutdown });
  const notifier = new RunNotifier({
    redis,
    outcomes: options.outcomes ?? new Outcomes(redis, settings.redis.prefix),
    settings,
    definitions: options.definitions,
    sender: new WebhookSender({
      timeoutMs: settings.notifications.timeoutMs,
      allowInsecureHttp: settings.notifications.allowInsecureHttp,
      userAgent: options.userAgent,
    }),
    logger,
  });
  const report = (result: NotificationResult): void => {
    try {
      options.onResult?.(result);
    } catch {
      // Metrics never fail a delivery.
    }
  };

  const workers = new QueueWorkers(logger);
  workers.add<NotifyJobData>({
    queueName: NOTIFY_QUEUE_NAME,
    processor: async (job: Job<NotifyJobData>) => {
      try {
        const result =
          'digest' in job.data
            ? await notifier.sendDigest(job.data.digest)
            : await notifier.notify(job.data.runId);
        report(result);
        return result;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        // A delivery the webhook refused (a 4xx, a refused address) cannot succeed on a retry.
        const failure =
          error instanceof WebhookDeliveryError && error.permanent
            ? new UnrecoverableError(message)
            : error;
        const givingUp = failureVerdict(job, failure) === 'fail';
        report(givingUp ? 'gave-up' : 'failed');
        logger.warn(
          {
            ...('digest' in job.data
              ? { definitionId: job.data.digest.definitionId, day: job.data.digest.day }
              : { runId: job.data.runId }),
            attempt: attemptNumber(job),
            err: { message },
          },
          givingUp ? 'giving up on a notification' : 'could not send a notification; will retry',
        );
        // Only paw's own messages (which name the webhook's host at most) reach BullMQ's record.
        throw givingUp ? toJobError(failure) : failure;
      }
    },
    options: {
      connection: redis,
      prefix: settings.redis.prefix,
      concurrency: 1,
      settings: {
        backoffStrategy: createBackoffStrategy({
          baseMs: settings.notifications.backoffBaseMs,
          maxMs: settings.notifications.backoffMaxMs,
        }),
      },
    },
    fields: { queue: NOTIFY_QUEUE_NAME },
  });
  workers.drainOnShutdown(shutdown, 'notification worker');
  await workers.start();
  return { producer };
}
