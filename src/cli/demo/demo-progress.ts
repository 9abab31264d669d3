import type { OutcomeQueries } from '../../outcomes/outcome-queries.js';
import type { RunRecord } from '../../outcomes/outcome-records.js';
import { isActiveStatus } from '../../outcomes/outcome-status.js';
import type { PawMetrics } from '../../ops/metrics/paw-metrics.js';
import { countsText } from '../../ops/dashboard/outcome-text.js';

/** What the demo shows at one moment: lines for what happened since, and a status line. */
export interface ProgressSnapshot {
  /** One line per run that appeared or ended since the previous snapshot. */
  readonly events: readonly string[];
  /** The one-line state of everything. */
  readonly line: string;
  readonly runs: readonly RunRecord[];
  /** Runs still queued or running. */
  readonly active: number;
}

/**
 * Follows the demo's runs through the outcome store (as `paw runs` would) and the process's
 * metrics, and says what changed: a run fired, a run ended with its counts.
 */
export class DemoProgress {
  private readonly seen = new Map<string, string>();

  constructor(
    private readonly queries: OutcomeQueries,
    private readonly metrics: PawMetrics,
  ) {}

  async snapshot(elapsedMs: number, phase: string): Promise<ProgressSnapshot> {
    const runs = await this.queries.listRuns({ order: 'oldest-first' });
    const events: string[] = [];
    for (const run of runs) {
      const before = this.seen.get(run.runId);
      if (before === run.status) continue;
      this.seen.set(run.runId, run.status);
      if (isActiveStatus(run.status)) {
        if (before === undefined) events.push(`  fired  ${run.runId} (${run.kind})`);
      } else {
        events.push(`  ${mark(run.status)} ${run.status.padEnd(9)} ${run.runId}: ${summary(run)}`);
      }
    }
    const active = runs.filter((run) => isActiveStatus(run.status));
    const ended = runs.length - active.length;
    const itemsTotal = active.reduce((sum, run) => sum + run.counts.total, 0);
    const itemsOpen = active.reduce((sum, run) => sum + run.counts.queued + run.counts.running, 0);
    const requests = await this.sum('paw_platform_requests_total');
    const limited = await this.sum('paw_platform_rate_limited_total');
    const line =
      `${phase} ${Math.round(elapsedMs / 1000)}s · runs: ${active.length} active, ${ended} ended` +
      (itemsTotal > 0 ? ` · items in progress: ${itemsTotal - itemsOpen}/${itemsTotal} done` : '') +
      ` · platform requests: ${requests}${limited > 0 ? ` (${limited} answered 429)` : ''}`;
    return { events, line, runs, active: active.length };
  }

  private async sum(name: string): Promise<number> {
    const metric = this.metrics.registry.getSingleMetric(name);
    if (metric === undefined) return 0;
    const { values } = await metric.get();
    return values.reduce((total, sample) => total + sample.value, 0);
  }
}

function mark(status: string): string {
  return status === 'succeeded' ? '✔' : status === 'skipped' ? '–' : '✘';
}

function summary(run: RunRecord): string {
  const why =
    run.reason ??
    (run.errorCode === undefined ? undefined : `${run.errorCode}: ${run.errorMessage ?? ''}`);
  return run.counts.total > 0 ? countsText(run.counts) : (why ?? 'no items');
}
