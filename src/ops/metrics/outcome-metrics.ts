import { Counter, Histogram, type Registry } from 'prom-client';
import type { OutcomeObserver } from '../../outcomes/outcome-observer.js';
import type { ItemCounts } from '../../outcomes/outcome-records.js';

/** Snapshot waits: seconds to hours (the default maxWait is 6 h). */
const WAIT_BUCKETS = [5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 14_400, 21_600, 43_200];

/** The item statuses of a run's counts, by the name the outcome store uses. */
const COUNT_STATUSES: ReadonlyArray<[keyof ItemCounts, string]> = [
  ['succeeded', 'succeeded'],
  ['failed', 'failed'],
  ['skipped', 'skipped'],
  ['timedOut', 'timed-out'],
  ['canceled', 'canceled'],
  ['queued', 'queued'],
  ['running', 'running'],
];

/**
 * Runs and their items as the outcome store records them, counted by the process that ended
 * each run: summed over all processes, `paw_runs_finished_total` and `paw_run_items_total` equal
 * what `paw runs` shows for the runs that ended while they ran. Also the wait of each snapshot,
 * from its trigger to the end of its platform job.
 */
export class OutcomeMetrics {
  private readonly runs: Counter<'definition' | 'kind' | 'status'>;
  private readonly items: Counter<'kind' | 'status'>;
  private readonly snapshotWait: Histogram<'status'>;

  constructor(registry: Registry) {
    this.runs = new Counter({
      name: 'paw_runs_finished_total',
      help: 'Runs that ended, by definition, kind and final status (as recorded in the outcome store).',
      labelNames: ['definition', 'kind', 'status'],
      registers: [registry],
    });
    this.items = new Counter({
      name: 'paw_run_items_total',
      help: 'Items of the runs that ended, by kind and status (counted when their run ends).',
      labelNames: ['kind', 'status'],
      registers: [registry],
    });
    this.snapshotWait = new Histogram({
      name: 'paw_snapshot_wait_seconds',
      help: 'Time from triggering a snapshot to the end of its platform job, by item status.',
      labelNames: ['status'],
      buckets: WAIT_BUCKETS,
      registers: [registry],
    });
  }

  /** The observer to give the worker's `Outcomes` (its runs and items). */
  observer(): OutcomeObserver {
    return {
      runFinished: (run) => {
        this.runs.inc({ definition: run.definitionId, kind: run.kind, status: run.status });
        for (const [field, status] of COUNT_STATUSES) {
          const count = run.counts[field];
          if (count > 0) this.items.inc({ kind: run.kind, status }, count);
        }
      },
      itemFinished: (item) => {
        if (item.action !== 'snapshot') return;
        if (item.startedAt === undefined || item.finishedAt === undefined) return;
        const seconds = (Date.parse(item.finishedAt) - Date.parse(item.startedAt)) / 1000;
        if (Number.isFinite(seconds) && seconds >= 0) {
          this.snapshotWait.observe({ status: item.status }, seconds);
        }
      },
    };
  }
}
