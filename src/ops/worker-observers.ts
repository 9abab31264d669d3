import type { OutcomeObserver } from '../outcomes/outcome-observer.js';
import type { PlatformObserver } from '../platform/platform-observer.js';
import type { WorkerObservers } from '../queue/workers/job-observer.js';
import type { PawMetrics } from './metrics/paw-metrics.js';
import type { NotificationProducer } from '../queue/notifications/notification-queue.js';
import type { RateLimitRecord } from '../platform/rate-limit/rate-limit-record.js';

/**
 * What a worker process reports to: its metrics (platform calls, processor calls, run and item
 * ends, snapshot waits), when a run ends, the notification queue (whether the run's
 * definition wants a summary is decided where the definitions are: in the schedulers), and the
 * platform's 429s to the record the dashboard draws under each run's progress. `outcomes` is
 * the observer of the process's Outcomes (src/cli/services/open-outcomes.ts), the rest its workers'.
 */
export function workerObservers(
  metrics: PawMetrics,
  notifications?: NotificationProducer,
  rateLimits?: RateLimitRecord,
): WorkerObservers & { readonly outcomes: OutcomeObserver } {
  const outcomeMetrics = metrics.outcomes.observer();
  const outcomes: OutcomeObserver = {
    runFinished: (run) => {
      outcomeMetrics.runFinished?.(run);
      metrics.coverage.runFinished(run);
      // Only a run whose definition asked for notifications costs a notification job.
      if (run.notify) notifications?.runEnded(run.runId);
    },
    itemFinished: (item, previousStatus) => outcomeMetrics.itemFinished?.(item, previousStatus),
  };
  const platformMetrics = metrics.platform.observer();
  const recorded = rateLimits?.observer();
  const platform: PlatformObserver = {
    onCall: (event) => {
      platformMetrics.onCall?.(event);
      recorded?.onCall?.(event);
    },
    onTokenRefresh: (event) => platformMetrics.onTokenRefresh?.(event),
  };
  return { platform, outcomes, jobs: metrics.jobs.observer() };
}
