import { Counter, type Registry } from 'prom-client';
import type { JobDefinition } from '../../definitions/job-definition.js';
import type { PlannedFire } from '../../scheduler/fire-plan.js';
import type { FireResult } from '../../scheduler/run-firer.js';

/**
 * What the scheduler did with each fire it handled: enqueued on time (`trigger="cron"`), caught
 * up (`trigger="catch-up"`), skipped (overlap), paused (`paw schedules pause`), removed by a
 * calendar (`schedule.skip`), missed, or found already handled by another
 * replica (`result="exists"`). Each replica counts the fires it handled.
 */
export class SchedulerMetrics {
  private readonly fires: Counter<'definition' | 'kind' | 'trigger' | 'result'>;

  constructor(registry: Registry) {
    this.fires = new Counter({
      name: 'paw_scheduler_fires_total',
      help:
        'Fires handled by this scheduler, by definition, kind, trigger (cron, catch-up) and result ' +
        '(enqueued, re-enqueued, skipped, paused, calendar, missed, exists).',
      labelNames: ['definition', 'kind', 'trigger', 'result'],
      registers: [registry],
    });
  }

  /** The `onFire` hook of `startSchedulerService`. */
  readonly onFire = (definition: JobDefinition, fire: PlannedFire, result: FireResult): void => {
    this.fires.inc({
      definition: definition.id,
      kind: definition.kind,
      trigger: fire.trigger,
      result: result.result,
    });
  };
}
