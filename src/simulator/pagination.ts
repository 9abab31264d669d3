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

export interface PaginateArgs<T> {
  /** Names the collection inside its cursors, so a cursor of one list is refused by another. */
  readonly list: string;
  /** The whole collection in listing order, as a length and an accessor (no copies). */
  readonly length: number;
  readonly at: (index: number) => T;
  /** The item's sort key; keys are unique and increase (or decrease) along the list. */
  readonly keyOf: (item: T) => SortKey;
  readonly descending?: boolean;
  readonly filter?: ((item: T) => boolean) | undefined;
  readonly first: number;
  readonly after?: string | undefined;
}

/**
 * One page of a collection, with opaque cursors that hold the sort key of an item: a cursor
 * keeps its place when items before it change, and the page starts by binary search.
 */
export function paginate<T>(args: PaginateArgs<T>): Page<T> {
  const direction = args.descending === true ? -1 : 1;
  const compare = (a: SortKey, b: SortKey): number => direction * compareKeys(a, b);
  let start = 0;
  if (args.after !== undefined) {
    const afterKey = decodeCursor(args.after, args.list);
    let low = 0;
    let high = args.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (compare(args.keyOf(args.at(middle)), afterKey) <= 0) low = middle + 1;
      else high = middle;
    }
    start = low;
  }

  const nodes: T[] = [];
  let count: number;
  let hasNextPage: boolean;
  let hasPreviousPage: boolean;
  if (args.filter === undefined) {
    count = args.length;
    const end = Math.min(args.length, start + args.first);
    for (let index = start; index < end; index++) nodes.push(args.at(index));
    hasNextPage = end < args.length;
    hasPreviousPage = start > 0;
  } else {
    count = 0;
    let before = 0;
    hasNextPage = false;
    for (let index = 0; index < args.length; index++) {
      const item = args.at(index);
      if (!args.filter(item)) continue;
      count++;
      if (index < start) before++;
      else if (nodes.length < args.first) nodes.push(item);
      else hasNextPage = true;
    }
    hasPreviousPage = before > 0;
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

function decodeCursor(cursor: string, list: string): SortKey {
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
      `after: not a cursor of this list; pass the endCursor of a previous page`,
    );
  }
  return decoded.slice(1);
}

function compareKeys(a: SortKey, b: SortKey): number {
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
