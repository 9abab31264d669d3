import { Counter, type Registry } from 'prom-client';
import type { NotificationResult } from '../../job-kinds/notify/run-notifier.js';

/**
 * Webhook deliveries of run summaries, by result: `sent`; `failed` (will be retried);
 * `gave-up` (no attempts left, or the webhook refused it for good); and the runs that needed
 * none (`not-configured`, `not-needed` for a successful run with `on: failure`, `already-sent`).
 */
export class NotificationMetrics {
  private readonly notifications: Counter<'result'>;

  constructor(registry: Registry) {
    this.notifications = new Counter({
      name: 'paw_notifications_total',
      help:
        'Run-summary notifications, by result (sent, failed, gave-up, not-configured, not-needed, ' +
        'already-sent).',
      labelNames: ['result'],
      registers: [registry],
    });
  }

  record(result: NotificationResult): void {
    this.notifications.inc({ result });
  }
}
