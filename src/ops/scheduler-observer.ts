import type { SchedulerOptions } from '../scheduler/scheduler.js';
import type { PawMetrics } from './metrics/paw-metrics.js';
import type { NotificationProducer } from '../queue/notifications/notification-queue.js';

/**
 * The scheduler's `onFire` in paw's processes: counts each fire, and reports a fire recorded as
 * missed to the notification queue when its definition wants summaries (a missed run never
 * reaches a worker, so nothing else would).
 */
export function schedulerOnFire(
  metrics: PawMetrics,
  notifications: NotificationProducer,
): NonNullable<SchedulerOptions['onFire']> {
  return (definition, fire, result) => {
    metrics.scheduler.onFire(definition, fire, result);
    if (result.result === 'missed' && definition.notify !== undefined) {
      notifications.runEnded(result.runId);
    }
  };
}
