import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Command, Option } from 'commander';
import { UsageError } from '../../shared/usage-error.js';
import { EXPORT_FORMATS, writeExport, type ExportFormat } from '../../outcomes/outcome-export.js';
import type { ItemRow } from '../../outcomes/outcome-records.js';
import type { ItemQuery } from '../../outcomes/outcome-queries.js';
import { ITEM_STATUSES, type ItemStatus } from '../../outcomes/outcome-status.js';
import { loadCommandSettings } from '../command-settings.js';
import { fireTimeQuery, withFireTimeRange } from '../fire-time-range.js';
import { choiceList, positiveInteger } from '../option-parsers.js';
import { withCommandRedis } from '../redis-session.js';
import { renderTable, truncate } from '../output/table.js';

interface OutcomesOptions {
  definition?: string;
  run?: string;
  status?: ItemStatus[];
  target?: string;
  since?: Date;
  until?: Date;
  limit?: number;
  json?: boolean;
  export?: ExportFormat;
  out?: string;
}

const DEFAULT_LIMIT = 100;

/**
 * `paw outcomes`: the items of recorded runs (a workload's snapshot, an SLA Domain's pause or
 * resume, a rotation), filtered by definition, run, status, target and fire time; as a table,
 * as JSON, or exported to JSONL or CSV (streamed, so months of runs export in little memory).
 */
export function outcomesCommand(): Command {
  return withFireTimeRange(
    new Command('outcomes')
      .description('list or export the outcome of every item of recorded runs')
      .option('--definition <id>', 'only items of runs of this job definition')
      .option('--run <runId>', 'only items of this run')
      .option(
        '--status <list>',
        `only items in these statuses (comma-separated: ${ITEM_STATUSES.join(', ')})`,
        choiceList(ITEM_STATUSES),
      )
      .option(
        '--target <idOrName>',
        'only items about this workload, SLA Domain or account (id or name)',
      ),
  )
    .option(
      '--limit <n>',
      `at most this many items (default ${DEFAULT_LIMIT} for the table and JSON, all for --export)`,
      positiveInteger,
    )
    .option('--json', 'print the items as a JSON array')
    .addOption(
      new Option('--export <format>', 'write every matching item as jsonl or csv').choices(
        EXPORT_FORMATS,
      ),
    )
    .option('--out <file>', 'with --export: the file to write (standard output when absent)')
    .action(async (options: OutcomesOptions) => {
      if (options.out !== undefined && options.export === undefined) {
        throw new UsageError(
          '--out names the file of an export: add --export jsonl or --export csv',
        );
      }
      if (options.export !== undefined && options.json === true) {
        throw new UsageError('choose --json (a listing) or --export (a file), not both');
      }
      const { settings } = await loadCommandSettings();
      const query: ItemQuery = {
        ...(options.definition === undefined ? {} : { definitionId: options.definition }),
        ...(options.run === undefined ? {} : { runId: options.run }),
        ...(options.status === undefined ? {} : { statuses: options.status }),
        ...(options.target === undefined ? {} : { target: options.target }),
        ...fireTimeQuery(options),
      };
      await withCommandRedis(settings, async (_redis, { queries }) => {
        if (options.export !== undefined) {
          await exportItems(
            limited(queries.items(query), options.limit),
            options.export,
            options.out,
          );
          return;
        }
        const limit = options.limit ?? DEFAULT_LIMIT;
        const items: ItemRow[] = [];
        for await (const item of limited(queries.items(query), limit + 1)) items.push(item);
        const more = items.length > limit;
        if (more) items.pop();
        if (options.json === true) {
          process.stdout.write(`${JSON.stringify(items, null, 2)}\n`);
        } else if (items.length === 0) {
          process.stdout.write('no recorded items match\n');
        } else {
          process.stdout.write(`${renderTable(ITEM_HEADERS, items.map(itemRow))}\n`);
        }
        if (more) {
          process.stderr.write(
            `(the first ${limit}; use --limit, narrower filters, or --export for all)\n`,
          );
        }
      });
    });
}

const ITEM_HEADERS = [
  'FIRED (UTC)',
  'DEFINITION',
  'TARGET',
  'ACTION',
  'STATUS',
  'ATTEMPTS',
  'PLATFORM JOB',
  'ERROR / NOTE',
];

function itemRow(item: ItemRow): string[] {
  const target = item.targetName ?? item.target ?? item.itemKey;
  const error = [item.errorCode, item.errorMessage ?? item.reason]
    .filter((part) => part !== undefined)
    .join(': ');
  return [
    item.fireTime.replace('T', ' ').replace(/\.000Z$|Z$/, ''),
    item.definitionId,
    truncate(target, 40),
    item.action ?? '',
    item.status,
    item.attempts === undefined ? '' : String(item.attempts),
    truncate(item.platformJobId ?? '', 40),
    truncate(error, 70),
  ];
}

async function* limited<T>(source: AsyncIterable<T>, limit: number | undefined): AsyncGenerator<T> {
  if (limit === undefined) {
    yield* source;
    return;
  }
  let count = 0;
  for await (const value of source) {
    if (count++ >= limit) return;
    yield value;
  }
}

/**
 * Streams the items to `out` (written to a temporary file renamed into place, so a failed
 * export never leaves a half file under the requested name) or to standard output.
 */
async function exportItems(
  items: AsyncIterable<ItemRow>,
  format: ExportFormat,
  out: string | undefined,
): Promise<void> {
  // A progress line rewritten in place, only where someone watches a terminal.
  const progress = (count: number): void => {
    if (process.stderr.isTTY) process.stderr.write(`paw outcomes: ${count} items exported\r`);
  };
  if (out === undefined || out === '-') {
    const count = await writeExport(items, format, process.stdout, progress);
    process.stderr.write(`paw outcomes: ${count} items exported\n`);
    return;
  }
  const temporary = `${out}.partial-${process.pid}`;
  const stream = createWriteStream(temporary, { flags: 'wx' });
  try {
    const count = await writeExport(items, format, stream, progress);
    await new Promise<void>((resolve, reject) => {
      stream.once('error', reject);
      stream.end(resolve);
    });
    await rename(temporary, out);
    process.stderr.write(`paw outcomes: ${count} items exported to ${out}\n`);
  } catch (error) {
    stream.destroy();
    await rm(temporary, { force: true });
    throw error;
  }
}
