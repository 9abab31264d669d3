import { RestError } from './rest-error.js';

export type SortKey = readonly (string | number)[];

interface PageInfo {
  startCursor: string | null;
  endCursor: string | null;
  hasNextPage: boolean;
  hasPreviousPage: boolean;
}

export interface Page<T> {
  nodes: T[];
  count: number;
  pageInfo: PageInfo;
}

/** A list in the order it is paged, as a length and an accessor (no copies). */
export interface OrderedList<T> {
  readonly length: number;
  readonly at: (index: number) => T;
}

/** An array as an {@link OrderedList}, in its own order. */
export function inArrayOrder<T>(items: readonly T[]): OrderedList<T> {
  return { length: items.length, at: (index) => items[index] as T };
}

/** What a collection pages: a list in the order of its keys, and what it keeps of it. */
export interface PageSource<T> {
  /** Names the list (and its order) inside its cursors: another list refuses them. */
  readonly list: string;
  readonly items: OrderedList<T>;
  /** Unique sort keys, increasing along `items` (decreasing when `descending`). */
  readonly keyOf: (item: T) => SortKey;
  readonly descending?: boolean;
  readonly filter?: ((item: T) => boolean) | undefined;
}

/** A page's window of a source: `first` after `after`, or `last` before `before`. */
export interface PaginateArgs<T> extends PageSource<T> {
  /** At most this many from the start of what lies between `after` and `before`. */
  readonly first?: number | undefined;
  readonly after?: string | undefined;
  /** At most this many from the end of that (after `first`, as Relay's connections do). */
  readonly last?: number | undefined;
  readonly before?: string | undefined;
}

/**
 * One page of a collection, with opaque cursors that hold the sort key of an item: a cursor
 * keeps its place when items before it change, and the window between `after` and `before`
 * starts and ends by binary search. Forward pages take `first` after `after`; backward pages
 * take `last` before `before`. `hasPreviousPage` and `hasNextPage` say whether the (filtered)
 * collection holds items before and after the page, whichever way it was read.
 */
export function paginate<T>(args: PaginateArgs<T>): Page<T> {
  const direction = args.descending === true ? -1 : 1;
  const compare = (a: SortKey, b: SortKey): number => direction * compareKeys(a, b);
  /** The first index whose key is above `key` (`strictly`) or not below it. */
  const boundary = (key: SortKey, strictly: boolean): number => {
    let low = 0;
    let high = args.items.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      const order = compare(args.keyOf(args.items.at(middle)), key);
      if (order < 0 || (strictly && order === 0)) low = middle + 1;
      else high = middle;
    }
    return low;
  };
  const start =
    args.after === undefined ? 0 : boundary(decodeCursor(args.after, args.list, 'after'), true);
  const end = Math.max(
    start,
    args.before === undefined
      ? args.items.length
      : boundary(decodeCursor(args.before, args.list, 'before'), false),
  );
  /** The part of a window of `size` items the page keeps: `first`, then `last` of those. */
  const pageOf = (size: number): { from: number; to: number } => {
    const to = args.first === undefined ? size : Math.min(size, args.first);
    const from = args.last === undefined ? 0 : Math.max(0, to - args.last);
    return { from, to };
  };

  const nodes: T[] = [];
  let count: number;
  let hasNextPage: boolean;
  let hasPreviousPage: boolean;
  if (args.filter === undefined) {
    count = args.items.length;
    const { from, to } = pageOf(end - start);
    for (let index = start + from; index < start + to; index++) nodes.push(args.items.at(index));
    hasPreviousPage = start + from > 0;
    hasNextPage = start + to < args.items.length;
  } else {
    // Only a backward page needs the whole window; a forward one stops keeping at `first`.
    const keep = args.last === undefined ? (args.first ?? Infinity) : Infinity;
    const window: T[] = [];
    let windowSize = 0;
    let before = 0;
    let after = 0;
    count = 0;
    for (let index = 0; index < args.items.length; index++) {
      const item = args.items.at(index);
      if (!args.filter(item)) continue;
      count++;
      if (index < start) before++;
      else if (index >= end) after++;
      else if (windowSize++ < keep) window.push(item);
    }
    const { from, to } = pageOf(windowSize);
    nodes.push(...window.slice(from, to));
    hasPreviousPage = before > 0 || from > 0;
    hasNextPage = after > 0 || to < windowSize;
  }
  const first = nodes[0];
  const last = nodes.at(-1);
  return {
    nodes,
    count,
    pageInfo: {
      startCursor: first === undefined ? null : encodeCursor(args.list, args.keyOf(first)),
      endCursor: last === undefined ? null : encodeCursor(args.list, args.keyOf(last)),
      hasNextPage,
      hasPreviousPage,
    },
  };
}

/** The cursor of the item with sort key `key` in list `list` (GraphQL edges carry one each). */
export function encodeCursor(list: string, key: SortKey): string {
  return Buffer.from(JSON.stringify([list, ...key])).toString('base64url');
}

function decodeCursor(cursor: string, list: string, argument: 'after' | 'before'): SortKey {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    decoded = undefined;
  }
  if (
    !Array.isArray(decoded) ||
    decoded[0] !== list ||
    decoded.length < 2 ||
    !decoded.every((part) => typeof part === 'string' || typeof part === 'number')
  ) {
    throw RestError.invalid(
      argument === 'after'
        ? 'after: not a cursor of this list; pass the endCursor of a previous page'
        : 'before: not a cursor of this list; pass the startCursor of a later page',
    );
  }
  return decoded.slice(1);
}

/** Orders sort keys part by part: numbers before strings, a shorter key before its extensions. */
export function compareKeys(a: SortKey, b: SortKey): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const left = a[index] as string | number;
    const right = b[index] as string | number;
    if (left === right) continue;
    if (typeof left === typeof right) return left < right ? -1 : 1;
    return typeof left === 'number' ? -1 : 1;
  }
  return a.length - b.length;
}
