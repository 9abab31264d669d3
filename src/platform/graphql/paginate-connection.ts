import { Paginated } from '../pagination/paginated.js';
import { pageOf, type Connection } from './connection.js';
import { documentFacts, type GraphqlClient, type GraphqlDocument } from './graphql-client.js';

/** A row paw cannot use (a field it needs is null): skipped and reported, never failing the page. */
export class UnusableRow {
  constructor(readonly problem: string) {}
}

/**
 * A GraphQL connection walked as a {@link Paginated}: `first`/`after` go into the variables,
 * `connection` picks it out of the data and `map` turns each node into paw's record, or into
 * an {@link UnusableRow}, which is left out and logged.
 */
export function paginateConnection<Result, Variables, N, T>(options: {
  readonly graphql: GraphqlClient;
  readonly document: GraphqlDocument<Result, Variables>;
  readonly variables: Omit<Variables, 'first' | 'after'>;
  readonly pageSize: number;
  readonly connection: (data: Result) => Connection<N>;
  readonly map: (node: N) => T | UnusableRow;
  readonly signal?: AbortSignal | undefined;
}): Paginated<T> {
  const { operationName } = documentFacts(options.document);
  return new Paginated(
    operationName,
    async (after, signal) => {
      const data = await options.graphql.request(
        options.document,
        { ...options.variables, first: options.pageSize, after: after ?? null } as Variables,
        signal,
      );
      const page = pageOf(options.connection(data));
      const nodes: T[] = [];
      const unusable: { path: string; problem: string }[] = [];
      page.nodes.forEach((node, index) => {
        const mapped = options.map(node);
        if (mapped instanceof UnusableRow) {
          unusable.push({ path: `nodes[${index}]`, problem: mapped.problem });
        } else nodes.push(mapped);
      });
      options.graphql.reportSkipped(operationName, unusable);
      return { ...page, nodes };
    },
    options.signal,
  );
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether an id can go where the schema takes a `UUID` (an FID, an SLA Domain, a cluster). */
export function isUuid(id: string): boolean {
  return UUID.test(id);
}

/**
 * A filter word as the schema's enums spell it (`Success` → `SUCCESS`, `TaskSuccess` →
 * `TASK_SUCCESS`): results and filters spell the same idea differently.
 */
export function enumWord(word: string): string {
  return word
    .trim()
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[\s-]+/g, '_')
    .toUpperCase();
}
