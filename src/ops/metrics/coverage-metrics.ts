import { Gauge, type Registry } from 'prom-client';

/** One definition's workload counts by coverage state (src/job-kinds/snapshot/coverage.ts). */
export interface DefinitionCounts {
  readonly definitionId: string;
  readonly counts: Readonly<Record<string, number>>;
}

/**
 * `paw_coverage_workloads{definition, state}`: how many workloads of each snapshot definition
 * are protected, failing, stale, skipped or never reached, from the last coverage report
 * (src/ops/coverage-refresher.ts). Labels stay bounded: definitions and the five states, never a
 * workload.
 */
export class CoverageMetrics {
  private readonly workloads: Gauge<'definition' | 'state'>;
  private readonly refreshedAt: Gauge;

  constructor(registry: Registry) {
    this.workloads = new Gauge({
      name: 'paw_coverage_workloads',
      help: 'Workloads of each snapshot definition by coverage state (protected, failing, stale, skipped, never), as of paw_coverage_refreshed_timestamp_seconds.',
      labelNames: ['definition', 'state'],
      registers: [registry],
    });
    this.refreshedAt = new Gauge({
      name: 'paw_coverage_refreshed_timestamp_seconds',
      help: 'When the coverage behind paw_coverage_workloads was computed (Unix time).',
      registers: [registry],
    });
  }

  private snapshotRunEnded: (() => void) | undefined;

  /** What to do when a snapshot run ends in this process (the refresher computes again). */
  onSnapshotRunEnd(listener: () => void): void {
    this.snapshotRunEnded = listener;
  }

  /** The outcome observer's run end (src/ops/worker-observers.ts). */
  runFinished(run: { readonly kind: string }): void {
    if (run.kind === 'snapshot') this.snapshotRunEnded?.();
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
