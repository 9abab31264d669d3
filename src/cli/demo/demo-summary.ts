import { renderTable } from '../output/table.js';
import { countsText, itemReason, runReason } from '../../ops/dashboard/outcome-text.js';
import type { DemoCheck, EndedRun } from './demo-verdict.js';

/** Everything the demo reports at its end. */
export interface DemoReport {
  readonly ok: boolean;
  readonly runs: readonly EndedRun[];
  readonly checks: readonly DemoCheck[];
  readonly dashboardUrl: string | undefined;
  readonly durationMs: number;
}

/** Item statuses that are worth a line in the summary. */
const NOTEWORTHY = new Set(['failed', 'timed-out', 'canceled', 'skipped']);
const MAX_ITEM_LINES = 12;

/** The end-of-demo summary, as plain text for a terminal. */
export function renderDemoSummary(report: DemoReport): string {
  const lines: string[] = ['', `Every run of the demo (${report.runs.length}):`, ''];
  lines.push(
    renderTable(
      ['run', 'kind', 'status', 'items', 'took', 'why'],
      report.runs.map(({ run }) => [
        run.runId,
        run.kind,
        run.status,
        run.counts.total > 0 ? countsText(run.counts) : '-',
        run.startedAt === undefined || run.finishedAt === undefined
          ? '-'
          : `${((Date.parse(run.finishedAt) - Date.parse(run.startedAt)) / 1000).toFixed(1)}s`,
        runReason(run) ?? '',
      ]),
    ),
  );
  const noteworthy = report.runs.flatMap(({ run, items }) =>
    items.filter((item) => NOTEWORTHY.has(item.status)).map((item) => ({ run, item })),
  );
  if (noteworthy.length > 0) {
    lines.push('', `Items that did not succeed (${noteworthy.length}), with their reasons:`, '');
    lines.push(
      renderTable(
        ['run', 'target', 'status', 'reason'],
        noteworthy
          .slice(0, MAX_ITEM_LINES)
          .map(({ run, item }) => [
            run.runId,
            item.targetName ?? item.target ?? item.itemKey,
            item.status,
            itemReason(item) ?? '',
          ]),
      ),
    );
    if (noteworthy.length > MAX_ITEM_LINES) {
      lines.push(`… and ${noteworthy.length - MAX_ITEM_LINES} more`);
    }
  }
  lines.push(
    '',
    'A run is failed when any of its items failed: the simulator fails about 3% of snapshot jobs and',
    'cancels about 1% on purpose, and paw must record each with its reason, not hide it.',
    '',
    'Checks:',
  );
  for (const check of report.checks) {
    lines.push(
      `  ${check.ok ? '✔' : '✘'} ${check.what}${check.detail === undefined ? '' : `: ${check.detail}`}`,
    );
  }
  lines.push(
    '',
    report.ok
      ? "Everything behaved as the simulator's faults allow."
      : 'Something did not behave as it should: see the checks marked ✘.',
    '',
  );
  return lines.join('\n');
}
