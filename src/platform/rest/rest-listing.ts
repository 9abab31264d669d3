import type { z } from 'zod';
import type { RestOperationId } from '../defaults/default-routes.js';
import type { Paginated } from '../pagination/paginated.js';
import type { RestClient } from './rest-client.js';
import type { QueryValue } from './route-table.js';

/**
 * A collection paw only lists through the task-based REST interface (clusters, events): one
 * record kind, read with its schema, its filters sent as the query as they are.
 */
export class RestListing<T, F extends Readonly<Record<string, QueryValue>>> {
  constructor(
    private readonly rest: RestClient,
    private readonly operationId: RestOperationId,
    private readonly schema: z.ZodType<T>,
  ) {}

  list(filters?: F, signal?: AbortSignal): Paginated<T> {
    return this.rest.collection(this.operationId, this.schema, { query: { ...filters }, signal });
  }
}
