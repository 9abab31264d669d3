import type { Writable } from 'node:stream';
import type { ItemRow } from './outcome-records.js';

export const EXPORT_FORMATS = ['jsonl', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The columns of a CSV export, in order (JSONL objects have the same keys, when set). */
export const EXPORT_COLUMNS = [
  'runId',
  'definitionId',
  'kind',
  'fireTime',
  'trigger',
  'itemKey',
  'status',
  'target',
  'targetName',
  'targetType',
  'action',
  'attempts',
  'platformJobId',
  'startedAt',
  'finishedAt',
  'updatedAt',
  'errorCode',
  'errorMessage',
  'reason',
  'details',
] as const satisfies readonly (keyof ItemRow)[];

/**
 * Writes `rows` to `out` as JSON Lines (one object per line) or CSV (RFC 4180: a header line,
 * fields quoted when they hold a comma, quote or line break; `details` as JSON text). Waits for
 * the stream to drain, so an export of millions of items uses little memory. Returns the count.
 */
export async function writeExport(
  rows: AsyncIterable<ItemRow>,
  format: ExportFormat,
  out: Writable,
  onProgress?: (written: number) => void,
): Promise<number> {
  let written = 0;
  if (format === 'csv') await write(out, `${EXPORT_COLUMNS.join(',')}\r\n`);
  for await (const row of rows) {
    await write(out, format === 'csv' ? csvLine(row) : `${JSON.stringify(row)}\n`);
    written++;
    if (onProgress !== undefined && written % 1000 === 0) onProgress(written);
  }
  onProgress?.(written);
  return written;
}

/** One CSV record of `row`, with its line ending. */
function csvLine(row: ItemRow): string {
  return `${EXPORT_COLUMNS.map((column) => csvField(row[column])).join(',')}\r\n`;
}

function csvField(value: ItemRow[(typeof EXPORT_COLUMNS)[number]]): string {
  if (value === undefined || value === null) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function write(out: Writable, chunk: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    out.once('error', onError);
    const flushed = out.write(chunk, (error) => {
      if (error) reject(error);
    });
    const done = (): void => {
      out.removeListener('error', onError);
      resolve();
    };
    if (flushed) done();
    else out.once('drain', done);
  });
}
