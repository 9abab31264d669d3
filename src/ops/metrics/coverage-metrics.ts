import { Gauge, type Registry } from 'prom-client';
import type {
  CoverageGauges,
  DefinitionCounts,
} from '../../job-kinds/snapshot/coverage/coverage-refresher.js';

/**
 * `paw_coverage_workloads{definition, state}`: how many workloads of each snapshot definition
 * are protected, failing, stale, skipped or never reached, from the last coverage report
 * (src/job-kinds/snapshot/coverage/coverage-refresher.ts). Labels stay bounded: definitions and the five states, never a
 * workload.
 */
export class CoverageMetrics implements CoverageGauges {
  private readonly workloads: Gauge<'definition' | 'state'>;
  private readonly refreshedAt: Gauge;
  private readonly refreshInterval: Gauge;

  constructor(registry: Registry) {
    this.workloads = new Gauge({
      name: 'paw_coverage_workloads',
      help: 'Workloads of each snapshot definition by coverage state (protected, failing, stale, skipped, never), as of paw_coverage_refreshed_timestamp_seconds.',
      labelNames: ['definition', 'state'],
      registers: [registry],
    });
    this.refreshedAt = new Gauge({
      name: 'paw_coverage_refreshed_timestamp_seconds',
      help: 'When the coverage behind paw_coverage_workloads was computed (Unix time); 0 before the first refresh.',
      registers: [registry],
    });
    // Lets an alert compare the age of the coverage with this process's own interval
    // (PawCoverageRefreshStale in deploy/prometheus/paw-rules.yml), and tells the processes that
    // refresh from those that do not: 0 in the latter.
    this.refreshInterval = new Gauge({
      name: 'paw_coverage_refresh_interval_seconds',
      help: 'How often this process refreshes paw_coverage_workloads (coverage.refreshIntervalMs); 0 where no refresher runs (paw worker).',
      registers: [registry],
    });
  }

  /** A refresher runs in this process, every `intervalMs`. */
  refreshing(intervalMs: number): void {
    this.refreshInterval.set(intervalMs / 1000);
  }

  private snapshotRunEnded: ((runId: string) => void) | undefined;

  /** What to do when a snapshot run ends in this process (the refresher computes again). */
  onSnapshotRunEnd(listener: (runId: string) => void): void {
    this.snapshotRunEnded = listener;
  }

  /** The outcome observer's run end (src/ops/worker-observers.ts). */
  runFinished(run: { readonly kind: string; readonly runId: string }): void {
    if (run.kind === 'snapshot') this.snapshotRunEnded?.(run.runId);
  }

  /** Replaces every series: a definition removed since the last report leaves none behind. */
  record(definitions: readonly DefinitionCounts[], computedAtMs: number): void {
    this.workloads.reset();
    for (const definition of definitions) {
      for (const [state, count] of Object.entries(definition.counts)) {
        this.workloads.set({ definition: definition.definitionId, state }, count);
      }
    }
    this.refreshedAt.set(computedAtMs / 1000);
  }
}
