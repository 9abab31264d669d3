import { printable } from '../../shared/printable.js';

export interface Column<T> {
  readonly header: string;
  readonly value: (row: T) => string | number | boolean | readonly string[] | null | undefined;
}

/**
 * Rows as aligned, space-separated columns under an upper-case header; empty values print as
 * `-` so that columns stay readable and `awk`-able.
 */
export function formatTable<T>(columns: readonly Column<T>[], rows: readonly T[]): string {
  const cells = rows.map((row) => columns.map((column) => cellText(column.value(row))));
  const headers = columns.map((column) => column.header.toUpperCase());
  return renderTable(headers, cells) + '\n';
}

/**
 * Renders rows as a plain-text table with a header, columns padded to their widest cell.
 * Cells are single-line (line breaks become spaces) so a table stays readable in a terminal,
 * and every other control character is shown escaped (see printable): cells hold text from
 * Redis and the platform.
 */
export function renderTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  // A lone carriage return is no line break but an overwrite: printable shows it escaped.
  const clean = (cell: string): string => printable(cell.replace(/\s*\r?\n\s*/g, ' '));
  const all = [headers, ...rows].map((row) => row.map(clean));
  const widths = headers.map((_, column) =>
    Math.max(...all.map((row) => (row[column] ?? '').length)),
  );
  return all
    .map((row) =>
      row
        .map((cell, column) =>
          column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0),
        )
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** Shortens `text` to `max` characters, marking the cut. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/** One `label: value` line per field, labels aligned; values escaped as table cells are. */
export function formatFields(fields: ReadonlyArray<readonly [string, unknown]>): string {
  const width = Math.max(...fields.map(([label]) => label.length));
  return (
    fields
      .map(([label, value]) => `${`${label}:`.padEnd(width + 1)} ${printable(cellText(value))}`)
      .join('\n') + '\n'
  );
}

function cellText(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (Array.isArray(value)) return value.length === 0 ? '-' : value.map(String).join(',');
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? '-';
}
