import { z } from 'zod';
import type { Page } from '../pagination/paginated.js';

/** A page of a REST collection (spec section 2): `nodes`, `count`, `pageInfo`; extra fields tolerated. */
export function collectionSchema<T extends z.ZodType>(node: T) {
  return z
    .looseObject({
      nodes: z.array(node),
      count: z.number().int().nonnegative().optional(),
      pageInfo: z.looseObject({
        endCursor: z.string().nullish(),
        hasNextPage: z.boolean(),
        startCursor: z.string().nullish(),
        hasPreviousPage: z.boolean().optional(),
      }),
    })
    .transform((collection): Page<z.output<T>> => ({
      nodes: collection.nodes,
      count: collection.count,
      endCursor: collection.pageInfo.endCursor,
      hasNextPage: collection.pageInfo.hasNextPage,
    }));
}
