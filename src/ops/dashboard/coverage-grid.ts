import type { CoverageReport } from '../../job-kinds/snapshot/coverage/coverage-report.js';
import type { OutcomeQueries } from '../../outcomes/outcome-queries.js';
import type { ItemStatus } from '../../outcomes/outcome-status.js';
import type { RunItemsReader } from '../../outcomes/run-items-reader.js';

/** Runs shown per definition: two weeks of a nightly schedule. */
const COVERAGE_RUNS = 14;
/** Workloads shown per definition and page unless asked (`?rows=`), and at most. */
export const COVERAGE_ROWS = 100;
export const MAX_COVERAGE_ROWS = 1000;

type DefinitionCoverage = CoverageReport['definitions'][number];
type CoverageRow = DefinitionCoverage['workloads'][number];

/** How the rows are ordered: by state (failing first, the default), by name, by streak. */
export const COVERAGE_SORTS = ['state', 'name', 'streak'] as const;
export type CoverageSort = (typeof COVERAGE_SORTS)[number];

/** States in the order that needs attention first. */
const STATE_ORDER: Readonly<Record<CoverageRow['state'], number>> = {
  failing: 0,
  stale: 1,
  never: 2,
  skipped: 3,
  protected: 4,
};

/** A workload's item in one run, or `absent`: the run did not include it. */
export type GridMark = ItemStatus | 'absent';

/** A workload's row: its state (from coverageReport) and its marks, oldest run first. */
export interface GridRow extends CoverageRow {
  readonly marks: readonly GridMark[];
}

/** A definition's grid: its last runs (oldest first) and a page of its workloads. */
export interface DefinitionGrid {
  readonly coverage: Omit<DefinitionCoverage, 'workloads'>;
  readonly runs: readonly { readonly runId: string; readonly fireTime: string }[];
  readonly rows: readonly GridRow[];
  /** All its workloads; `rows` are those from `offset`. */
  readonly total: number;
  readonly offset: number;
}

export interface GridOptions {
  readonly sort: CoverageSort;
  /** Rows per definition. */
  readonly rows: number;
  /** The first row shown (after sorting). */
  readonly offset: number;
}

/**
 * Each definition of `report` as a grid: its workloads (sorted, a page of them) × its last 14
 * runs, each mark that workload's item in that run. The outcome store is read boundedly: the
 * runs by OutcomeQueries, then one HMGET per run of the page's workloads (item key = workload
 * id, as a snapshot run records it).
 */
export async function loadCoverageGrids(
  report: CoverageReport,
  queries: OutcomeQueries,
  items: RunItemsReader,
  options: GridOptions,
): Promise<DefinitionGrid[]> {
  return Promise.all(
    report.definitions.map(async ({ workloads, ...coverage }): Promise<DefinitionGrid> => {
      const sorted = [...workloads].sort(comparator(options.sort));
      const page = sorted.slice(options.offset, options.offset + options.rows);
      const runs = (
        await queries.listRuns({ definitionId: coverage.definitionId, limit: COVERAGE_RUNS })
      ).reverse();
      const ids = page.map((row) => row.workloadId);
      const statuses = await Promise.all(
        runs.map(async (run) => {
          const found = await items.byKeys(run.runId, ids);
          return new Map(found.map((item) => [item.itemKey, item.status]));
        }),
      );
      return {
        coverage,
        runs: runs.map((run) => ({ runId: run.runId, fireTime: run.fireTime })),
        rows: page.map((row) => ({
          ...row,
          marks: statuses.map((ofRun) => ofRun.get(row.workloadId) ?? 'absent'),
        })),
        total: workloads.length,
        offset: options.offset,
      };
    }),
  );
}

function comparator(sort: CoverageSort): (a: CoverageRow, b: CoverageRow) => number {
  const byName = (a: CoverageRow, b: CoverageRow): number =>
    (a.name || a.workloadId).localeCompare(b.name || b.workloadId);
  const byStreak = (a: CoverageRow, b: CoverageRow): number => b.failureStreak - a.failureStreak;
  const byState = (a: CoverageRow, b: CoverageRow): number =>
    STATE_ORDER[a.state] - STATE_ORDER[b.state];
  switch (sort) {
    case 'name':
      return byName;
    case 'streak':
      return (a, b) => byStreak(a, b) || byState(a, b) || byName(a, b);
    case 'state':
      return (a, b) => byState(a, b) || byStreak(a, b) || byName(a, b);
  }
}
