import { encodeCursor, paginate, type PaginateArgs } from '../pagination.js';
import { asFieldErrors } from './graphql-context.js';

/** At most this many per page, as the platform's connections. */
const MAX_PAGE = 1000;

/**
 * A GraphQL connection (`count`, `nodes`, `edges`, `pageInfo`) over a list, with the REST
 * interface's opaque cursors: a cursor of another list, or garbage, is a 400 field error.
 */
export function connection<T, N>(
  args: Omit<PaginateArgs<T>, 'first' | 'after'> & {
    readonly first: number | null | undefined;
    readonly after: string | null | undefined;
  },
  view: (item: T) => N,
) {
  const first = Math.min(Math.max(0, args.first ?? 50), MAX_PAGE);
  const page = asFieldErrors(() => paginate({ ...args, first, after: args.after ?? undefined }));
  const nodes = page.nodes.map(view);
  return {
    count: page.count,
    nodes,
    edges: page.nodes.map((item, index) => ({
      cursor: encodeCursor(args.list, args.keyOf(item)),
      node: nodes[index],
    })),
    pageInfo: page.pageInfo,
  };
}
