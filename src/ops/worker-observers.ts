import type { OutcomeObserver } from '../outcomes/outcome-observer.js';
import type { WorkerObservers } from '../worker/worker-service.js';
import type { PawMetrics } from './metrics/paw-metrics.js';
import type { NotificationProducer } from './notify/notification-queue.js';

/**
 * What a worker process reports to: its metrics (platform calls, processor calls, run and item
 * ends, snapshot waits) and, when a run ends, the notification queue (whether the run's
 * definition wants a summary is decided where the definitions are: in the schedulers).
 */
export function workerObservers(
  metrics: PawMetrics,
  notifications?: NotificationProducer,
): WorkerObservers {
  const outcomeMetrics = metrics.outcomes.observer();
  const outcomes: OutcomeObserver = {
    runFinished: (run) => {
      outcomeMetrics.runFinished?.(run);
      notifications?.runEnded(run.runId);
    },
    itemFinished: (item, previousStatus) => outcomeMetrics.itemFinished?.(item, previousStatus),
  };
  return { platform: metrics.platform.observer(), outcomes, jobs: metrics.jobs.observer() };
}
