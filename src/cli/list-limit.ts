import type { Command } from 'commander';
import type { Paginated } from '../platform/pagination/paginated.js';
import { positiveInteger } from './option-parsers.js';
import type { Output } from './output/output.js';
import { formatTable, type Column } from './output/table.js';

export interface ListLimitOptions {
  readonly limit?: number;
  readonly all?: boolean;
}

const DEFAULT_LIMIT = 100;

/** Adds `--limit N` and `--all` to a list command. */
export function withListLimit(command: Command): Command {
  return command
    .option('--limit <n>', `show at most N items (default ${DEFAULT_LIMIT})`, positiveInteger)
    .option('--all', 'show every item, walking all pages');
}

/**
 * Collects a list up to the limit, and tells the human (on standard error) when there are more
 * than it shows.
 */
async function collectList<T>(
  list: Paginated<T>,
  options: ListLimitOptions,
  output: Output,
): Promise<T[]> {
  const limit = options.all ? Number.POSITIVE_INFINITY : (options.limit ?? DEFAULT_LIMIT);
  const items: T[] = [];
  let total: number | undefined;
  let more = false;
  for await (const page of list.pages()) {
    total ??= page.count;
    for (const node of page.nodes) {
      if (items.length >= limit) {
        more = true;
        break;
      }
      items.push(node);
    }
    if (more || items.length >= limit) {
      more ||= page.hasNextPage;
      break;
    }
  }
  if (items.length === 0) output.note('nothing found');
  if (more) {
    output.note(
      `showing ${items.length}${total === undefined ? '' : ` of ${total}`}; use --limit N or --all for more`,
    );
  }
  return items;
}

/** Prints a list as {@link collectList} collects it: a table of `columns`, or JSON. */
export async function printList<T>(
  list: Paginated<T>,
  columns: readonly Column<T>[],
  options: ListLimitOptions,
  output: Output,
): Promise<void> {
  const items = await collectList(list, options, output);
  output.result(items, () => formatTable(columns, items));
}
