import { writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';

/** Where and under what load a benchmark ran: printed with every figure, so a reader can judge it. */
export interface BenchContext {
  readonly command: string;
  readonly machine: { readonly cpus: number; readonly model: string; readonly node: string };
  readonly loadAverage: { readonly before: number[]; after?: number[] };
}

/** Captures the command line, the machine and the load average before the benchmark starts. */
export function benchContext(name: string, args: readonly string[]): BenchContext {
  return {
    command: `npm run bench -- ${[name, ...args].join(' ')}`,
    machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', node: process.version },
    loadAverage: { before: loadavg().map(round2) },
  };
}

/** Records the load average after the measurement. */
export function finishContext(context: BenchContext): BenchContext {
  return { ...context, loadAverage: { ...context.loadAverage, after: loadavg().map(round2) } };
}

/** The heading lines every benchmark prints above its table. */
export function contextLines(context: BenchContext): string[] {
  const { before, after } = context.loadAverage;
  return [
    `command: ${context.command}`,
    `machine: ${context.machine.cpus} CPUs (${context.machine.model}), Node ${context.machine.node}`,
    `load average (1/5/15 min): before ${before.join(' ')}, after ${(after ?? []).join(' ')}`,
  ];
}

/** A table as aligned text, or as a Markdown table (for BENCHMARKS.md). */
export function renderTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  markdown: boolean,
): string {
  if (markdown) {
    const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
    return [
      line(headers),
      line(headers.map((_, index) => (index === 0 ? '---' : '---:'))),
      ...rows.map(line),
    ].join('\n');
  }
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd();
  return [
    line(headers),
    widths.map((width) => '-'.repeat(width)).join('  '),
    ...rows.map(line),
  ].join('\n');
}

/** Writes the report as pretty JSON (`--json FILE`). */
export async function writeJsonReport(file: string, report: unknown): Promise<void> {
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
}

/** Progress lines on standard error, prefixed with the benchmark's name and the elapsed time. */
export function progressReporter(name: string): (line: string) => void {
  const started = performance.now();
  return (line) => {
    const seconds = ((performance.now() - started) / 1000).toFixed(1).padStart(5);
    process.stderr.write(`bench ${name} [${seconds} s]: ${line}\n`);
  };
}

/** The p-th percentile (0–100) of ascending `sorted` values, nearest-rank; NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN;
}

export function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

export function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/**
 * A benchmark's options from its arguments, or undefined when there is nothing to run: `--help`
 * (the usage on standard output) or bad usage (the problem and the usage on standard error, exit
 * code 2). `parse` returns undefined for `--help` and throws on bad usage.
 */
export function optionsOrUsage<Options>(
  args: string[],
  parse: (args: string[]) => Options | undefined,
  usage: string,
): Options | undefined {
  let options: Options | undefined;
  try {
    options = parse(args);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${usage}`);
    process.exitCode = 2;
    return undefined;
  }
  if (options === undefined) process.stdout.write(usage);
  return options;
}
