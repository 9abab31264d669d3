import type { PawMetrics } from '../../ops/metrics/paw-metrics.js';
import type { NotificationProducer } from '../../queue/notifications/notification-queue.js';
import { openNotificationProducer } from '../../queue/notifications/open-notification-producer.js';
import { openRateLimitRecord } from '../../platform/rate-limit/rate-limit-record.js';
import { workerObservers } from '../../ops/worker-observers.js';
import type { OutcomeObserver } from '../../outcomes/outcome-observer.js';
import { Outcomes } from '../../outcomes/outcomes.js';
import { openSubsystemConnection, type ProcessParts } from '../../redis/redis-connection.js';
import type { WorkerObservers } from '../../queue/workers/job-observer.js';

/**
 * The one {@link Outcomes} of a long-running process (`paw start`, `paw scheduler`, `paw worker`,
 * `paw demo`), on a connection of their own, with the process's observer. Open them before
 * anything that records or reads outcomes (the notification sender, the scheduler, the workers,
 * the ops server), so that the shutdown releases them after all of those.
 *
 * The connection waits out a Redis outage rather than failing a command after a few tries (as the
 * workers' always did): an item's record, the intent before a trigger above all, is never dropped
 * for a blip.
 */
export async function openOutcomes(
  options: ProcessParts & { readonly observer?: OutcomeObserver },
): Promise<Outcomes> {
  const { redis } = await openSubsystemConnection(options, 'outcomes', 'worker', 'outcomes');
  return new Outcomes(redis, options.settings.redis.prefix, options.observer);
}

/** What a process records through and reports to; see {@link openProcessOutcomes}. */
export interface ProcessOutcomes {
  readonly outcomes: Outcomes;
  /** Where run ends are reported, for the schedulers to notify. */
  readonly notifications: NotificationProducer;
  /** For its workers: platform calls and processor calls to metrics (and 429s to their record). */
  readonly observers: WorkerObservers;
}

/**
 * Opens, in this order, what a process reports to and its outcomes: the notification producer,
 * the record of 429s (when it runs workers), then the {@link Outcomes}, observed by the metrics
 * and the producer. Open them first: the shutdown releases them last, so runs that end while the
 * workers drain are still recorded and reported.
 */
export async function openProcessOutcomes(
  options: ProcessParts & { readonly metrics: PawMetrics; readonly runsWorkers: boolean },
): Promise<ProcessOutcomes> {
  const { settings, logger, shutdown } = options;
  const notifications = await openNotificationProducer({ settings, logger, shutdown });
  const rateLimits = options.runsWorkers
    ? await openRateLimitRecord({ settings, logger, shutdown })
    : undefined;
  const observers = workerObservers(options.metrics, notifications, rateLimits);
  const outcomes = await openOutcomes({ settings, logger, shutdown, observer: observers.outcomes });
  return { outcomes, notifications, observers };
}
