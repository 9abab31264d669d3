import { contextLines, renderTable, type BenchContext } from '../support/bench-report.js';

/** One measured figure of the long run, with its target when it has one. */
export interface LongrunFigure {
  readonly figure: string;
  /** What was measured, as printed. */
  readonly measured: string;
  /** The target as printed (`≤ 10 %`); absent for a figure reported without one. */
  readonly target?: string;
  /** Whether the measured value met the target; absent without a target. */
  readonly met?: boolean;
}

export interface LongrunReport {
  readonly context: BenchContext;
  /** The speed loop's CPU ms before and after (bench/support/machine-speed.ts: lower is faster). */
  readonly speedLoopMs: { readonly before: number; readonly after: number };
  readonly sections: readonly {
    readonly title: string;
    readonly figures: readonly LongrunFigure[];
  }[];
}

/** How much `after` grew over `before`, percent (negative when it shrank). */
export function growthPercent(before: number, after: number): number {
  return ((after - before) / before) * 100;
}

/**
 * A figure judged against an upper bound: met when `value` is at most `limit` (a figure that
 * could not be measured, NaN, misses).
 */
export function atMost(
  figure: string,
  value: number,
  limit: number,
  unit: string,
  digits = 0,
): LongrunFigure {
  return {
    figure,
    measured: `${value.toFixed(digits)}${unit}`,
    target: `≤ ${limit}${unit}`,
    met: value <= limit,
  };
}

/** The report as text: the context, each section's table (figure, measured, target, met). */
export function longrunText(report: LongrunReport, markdown: boolean): string {
  const lines = [
    ...contextLines(report.context),
    `speed loop: ${report.speedLoopMs.before.toFixed(0)} ms before, ${report.speedLoopMs.after.toFixed(0)} ms after (lower is faster)`,
  ];
  for (const section of report.sections) {
    lines.push('', section.title);
    lines.push(
      renderTable(
        ['figure', 'measured', 'target', ''],
        section.figures.map((one) => [
          one.figure,
          one.measured,
          one.target ?? '',
          one.met === undefined ? '' : one.met ? 'met' : 'missed',
        ]),
        markdown,
      ),
    );
  }
  return `${lines.join('\n')}\n`;
}
