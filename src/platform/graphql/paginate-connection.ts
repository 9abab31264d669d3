import type { z } from 'zod';
import { Paginated, type Page } from '../pagination/paginated.js';
import type { GraphqlClient, GraphqlOperation } from './graphql-client.js';

/**
 * A GraphQL connection walked as a {@link Paginated}: `first`/`after` go into the variables,
 * `page` picks the connection out of the data and `map` turns each node into paw's record.
 */
export function paginateConnection<S extends z.ZodType, N, T>(options: {
  readonly graphql: GraphqlClient;
  readonly operation: GraphqlOperation<S>;
  readonly variables: Readonly<Record<string, unknown>>;
  readonly pageSize: number;
  readonly page: (data: z.output<S>) => Page<N>;
  readonly map: (node: N) => T;
  readonly signal?: AbortSignal | undefined;
}): Paginated<T> {
  return new Paginated(
    options.operation.operationName,
    async (after, signal) => {
      const data = await options.graphql.request(
        options.operation,
        { ...options.variables, first: options.pageSize, after: after ?? null },
        signal,
      );
      const page = options.page(data);
      return { ...page, nodes: page.nodes.map(options.map) };
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
