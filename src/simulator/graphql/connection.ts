import {
  compareKeys,
  encodeCursor,
  inArrayOrder,
  paginate,
  type PageSource,
  type SortKey,
} from '../pagination.js';
import { asFieldErrors, argumentError } from './graphql-context.js';

/** At most this many per page, as the platform's connections. */
const MAX_PAGE = 1000;
/** A page when the caller gives neither `first` nor `last`. */
const DEFAULT_PAGE = 50;

/** The arguments every connection of the schema takes. */
export interface ConnectionArgs {
  readonly first?: number | null;
  readonly after?: string | null;
  readonly last?: number | null;
  readonly before?: string | null;
}

/**
 * A GraphQL connection (`count`, `nodes`, `edges`, `pageInfo`) over a list, with the REST
 * interface's opaque cursors: forward with `first` and `after`, backward with `last` and
 * `before`, as Relay defines them. A cursor of another list (or order), or garbage, is a 400
 * field error naming the argument; so is a negative `first` or `last`. The page's cursors are
 * `String!` in the schema: an empty page answers "" for both.
 */
function connection<T, N>(source: PageSource<T>, args: ConnectionArgs, view: (item: T) => N) {
  const size = (name: 'first' | 'last', value: number | null | undefined) => {
    if (value == null) return undefined;
    if (value < 0) throw argumentError(name, `must not be negative (${value})`);
    return Math.min(value, MAX_PAGE);
  };
  let first = size('first', args.first);
  const last = size('last', args.last);
  if (first === undefined && last === undefined) first = DEFAULT_PAGE;
  const page = asFieldErrors(() =>
    paginate({
      ...source,
      first,
      after: args.after ?? undefined,
      last,
      before: args.before ?? undefined,
    }),
  );
  const nodes = page.nodes.map(view);
  return {
    count: page.count,
    nodes,
    edges: page.nodes.map((item, index) => ({
      cursor: encodeCursor(source.list, source.keyOf(item)),
      node: nodes[index],
    })),
    pageInfo: {
      startCursor: page.pageInfo.startCursor ?? '',
      endCursor: page.pageInfo.endCursor ?? '',
      hasNextPage: page.pageInfo.hasNextPage,
      hasPreviousPage: page.pageInfo.hasPreviousPage,
    },
  };
}

/** `ASC` or `DESC`, as the schema's `SortOrder`. */
type SortOrder = 'ASC' | 'DESC';

/** The arguments of a connection the caller can sort (`sortBy` is the field's own enum). */
export interface SortedConnectionArgs extends ConnectionArgs {
  readonly sortBy?: string | null;
  readonly sortOrder?: SortOrder | null;
}

/**
 * A connection over `items` in the order the caller asked for (`args.sortBy`, `sortOrder`),
 * keeping what `filter` keeps.
 */
export function sortedConnection<T, N>(
  list: string,
  items: readonly T[],
  orderings: Orderings<T>,
  args: SortedConnectionArgs,
  filter: ((item: T) => boolean) | undefined,
  view: (item: T) => N,
) {
  const source = ordered(list, items, orderings, args.sortBy, args.sortOrder);
  return connection({ ...source, filter }, args, view);
}

/** How a connection can be sorted: a key per `sortBy` value it serves, and its defaults. */
export interface Orderings<T> {
  /** What the list is, for messages ("snappables"). */
  readonly what: string;
  /** The sort key of each `sortBy` value the simulator can sort by (ties: `tieBreak`). */
  readonly keys: Readonly<Record<string, (item: T) => SortKey>>;
  /** Why the other values of the schema's enum cannot be served, where it has others. */
  readonly whyNot?: string;
  readonly defaultSortBy: string;
  /** The order when the caller gives `sortBy` without `sortOrder`. */
  readonly defaultOrder: (sortBy: string) => SortOrder;
  /** A unique string per item, so that every key is unique. */
  readonly tieBreak: (item: T) => string;
  /** The `sortBy` (in `defaultOrder`) whose order `items` already have: no copy for it. */
  readonly presorted?: string;
}

/**
 * The connection source of `items` in the order the caller asked for (`sortBy`, `sortOrder`),
 * with the list name carrying that order. A `sortBy` value the simulator cannot serve is a 400
 * field error naming the argument.
 */
function ordered<T>(
  list: string,
  items: readonly T[],
  orderings: Orderings<T>,
  sortBy: string | null | undefined,
  sortOrder: SortOrder | null | undefined,
): Omit<PageSource<T>, 'filter'> {
  const by = sortBy ?? orderings.defaultSortBy;
  const key = orderings.keys[by];
  if (key === undefined) {
    const why = orderings.whyNot === undefined ? '' : ` (${orderings.whyNot})`;
    throw argumentError(
      'sortBy',
      `the simulator cannot sort ${orderings.what} by ${by}${why}; it sorts by ${Object.keys(orderings.keys).join(', ')}`,
    );
  }
  const order = sortOrder ?? orderings.defaultOrder(by);
  const descending = order === 'DESC';
  const keyOf = (item: T): SortKey => [...key(item), orderings.tieBreak(item)];
  const source = { list: `${list}:${by}:${order}`, keyOf, descending };
  if (by === orderings.presorted) {
    const ascending = orderings.defaultOrder(by) === 'ASC';
    const reversed = ascending === descending;
    const length = items.length;
    return {
      ...source,
      items: reversed
        ? { length, at: (index) => items[length - 1 - index] as T }
        : inArrayOrder(items),
    };
  }
  const direction = descending ? -1 : 1;
  const keyed = items.map((item) => ({ item, key: keyOf(item) }));
  keyed.sort((a, b) => direction * compareKeys(a.key, b.key));
  return {
    ...source,
    items: { length: keyed.length, at: (index) => (keyed[index] as { item: T }).item },
  };
}
