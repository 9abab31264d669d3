import type { z } from 'zod';
import type { BearerAuthorization, HttpCaller } from '../http/http-caller.js';
import type { AnswerSize } from '../http/answer-limits.js';
import { Paginated } from '../pagination/paginated.js';
import { collectionSchema } from './collection.js';
import type { RestOperationId } from '../defaults/default-routes.js';
import { parseEnvelope, type EnvelopeResult } from './envelope.js';
import type { QueryValue, RouteTable } from './route-table.js';

/**
 * Operations that must not be sent twice without checking first: a repeated trigger is a second
 * snapshot, a repeated create or delete answers a confusing conflict or not-found. Every other
 * operation is a read or sets a state (assign, pause), which is harmless to repeat.
 */
const NOT_IDEMPOTENT: ReadonlySet<RestOperationId> = new Set([
  'takeSnapshot',
  'createSlaDomain',
  'deleteSlaDomain',
]);

export interface RestCallOptions {
  readonly params?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, QueryValue>>;
  readonly body?: unknown;
  readonly signal?: AbortSignal | undefined;
  /** Not sent after this time (epoch ms): see CallSpec.sendBy. */
  readonly sendBy?: number | undefined;
  /** How large the answer may be (default `single`). */
  readonly answer?: AnswerSize | undefined;
}

export interface RestClientOptions {
  readonly http: HttpCaller;
  readonly routes: RouteTable;
  readonly authorization: BearerAuthorization;
  readonly baseUrl: URL;
  /** Page size for collections (`first`). */
  readonly pageSize: number;
}

/** The task-based REST interface: one envelope-parsing call per operation, and collections. */
export class RestClient {
  constructor(private readonly options: RestClientOptions) {}

  get baseUrl(): URL {
    return this.options.baseUrl;
  }

  get routes(): RouteTable {
    return this.options.routes;
  }

  async call<S extends z.ZodType>(
    operationId: RestOperationId,
    dataSchema: S,
    options: RestCallOptions = {},
  ): Promise<EnvelopeResult<z.output<S>>> {
    const route = this.options.routes.resolve(operationId, options.params, options.query);
    return this.options.http.call({
      operation: operationId,
      method: route.method,
      route: route.template,
      url: route.url,
      allowedOrigin: this.options.baseUrl.origin,
      idempotent: !NOT_IDEMPOTENT.has(operationId),
      gated: true,
      authorization: this.options.authorization,
      body: options.body === undefined ? undefined : { json: options.body },
      signal: options.signal,
      sendBy: options.sendBy,
      answer: options.answer,
      parse: (response) => parseEnvelope(response, operationId, dataSchema),
    });
  }

  /** A collection operation as an async iterable over `first`/`after` pages. */
  collection<S extends z.ZodType>(
    operationId: RestOperationId,
    nodeSchema: S,
    options: RestCallOptions & { readonly pageSize?: number | undefined } = {},
  ): Paginated<z.output<S>> {
    const pageSchema = collectionSchema(nodeSchema);
    const first = options.pageSize ?? this.options.pageSize;
    return new Paginated(
      operationId,
      async (after, signal) => {
        const result = await this.call(operationId, pageSchema, {
          ...options,
          signal,
          answer: 'page',
          query: { ...options.query, first, after },
        });
        return result.data;
      },
      options.signal,
    );
  }

  /**
   * GETs a link the platform handed out (a job-status URL), with the platform token. The origin
   * guard in the HTTP layer refuses a link to any other origin before anything is sent.
   */
  async follow<S extends z.ZodType>(
    operation: RestOperationId,
    url: URL,
    dataSchema: S,
    signal?: AbortSignal,
  ): Promise<EnvelopeResult<z.output<S>>> {
    return this.options.http.call({
      operation,
      method: 'GET',
      route: '(link from the platform)',
      url,
      allowedOrigin: this.options.baseUrl.origin,
      idempotent: true,
      gated: true,
      authorization: this.options.authorization,
      signal,
      parse: (response) => parseEnvelope(response, operation, dataSchema),
    });
  }
}
