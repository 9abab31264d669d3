import { paginate, type PageSource } from './pagination.js';
import { successEnvelope } from './rest-error.js';

/**
 * A page of a REST collection in its success envelope (`nodes`, `count`, `pageInfo`): the
 * items of `source` that its filter keeps, `first` of them after the cursor `after`, each shown
 * through `view`.
 */
export function collectionEnvelope<T, N>(
  source: PageSource<T>,
  query: { readonly first?: number | undefined; readonly after?: string | undefined },
  view: (item: T) => N,
) {
  const page = paginate({ ...source, first: query.first, after: query.after });
  return successEnvelope({ ...page, nodes: page.nodes.map(view) });
}
