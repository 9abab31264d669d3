import { z } from 'zod';
import type { Page } from '../pagination/paginated.js';

/** A GraphQL connection's page (`nodes`, `count`, `pageInfo`), in the shape pagination walks. */
export function connectionSchema<T extends z.ZodType>(node: T) {
  return z
    .looseObject({
      count: z.number().int().nonnegative().nullish(),
      nodes: z.array(node),
      pageInfo: z.looseObject({
        endCursor: z.string().nullish(),
        hasNextPage: z.boolean(),
      }),
    })
    .transform((connection): Page<z.output<T>> => ({
      nodes: connection.nodes,
      count: connection.count ?? undefined,
      endCursor: connection.pageInfo.endCursor,
      hasNextPage: connection.pageInfo.hasNextPage,
    }));
}

/** The selection every connection document asks for besides its nodes. */
export const PAGE_INFO_SELECTION = 'count pageInfo { endCursor hasNextPage }';
