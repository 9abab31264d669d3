import type { Page } from '../pagination/paginated.js';
import { graphql } from './schema/platform-graphql.js';

/** What paw reads of every connection's `pageInfo`. */
export const pageFields = graphql(`
  fragment PageFields on PageInfo {
    endCursor
    hasNextPage
  }
`);

/** A connection as a document selects it: `count`, `nodes` and `pageInfo { ...PageFields }`. */
export interface Connection<N> {
  readonly count: number;
  readonly nodes: readonly N[];
  readonly pageInfo: { readonly endCursor: string; readonly hasNextPage: boolean };
}

/** A connection's page in the shape pagination walks. */
export function pageOf<N>(connection: Connection<N>): Page<N> {
  return {
    nodes: connection.nodes,
    count: connection.count,
    endCursor: connection.pageInfo.endCursor,
    hasNextPage: connection.pageInfo.hasNextPage,
  };
}
