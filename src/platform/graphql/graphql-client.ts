import { z } from 'zod';
import { appendPath } from '../http/append-path.js';
import { errorFromStatus, malformedResponse } from '../http/error-factory.js';
import type { BearerAuthorization, HttpCaller } from '../http/http-caller.js';
import type { IncomingResponse } from '../http/http-transport.js';
import { readAnswerJson } from '../http/parse-json-body.js';
import { UnavailableError, type PlatformError } from '../http/platform-errors.js';
import { fieldsOf } from '../rest/envelope.js';

const GRAPHQL_PATH = '/api/graphql';

/** A GraphQL operation paw sends: a constant document, never a string built from input. */
export interface GraphqlOperation<S extends z.ZodType> {
  readonly operationName: string;
  readonly document: string;
  /** Queries are repeated after a transient failure; mutations are not. */
  readonly kind: 'query' | 'mutation';
  /** Schema of `data`. */
  readonly data: S;
}

const responseSchema = z.looseObject({
  data: z.unknown().optional(),
  errors: z
    .array(
      z.looseObject({
        message: z.string().optional(),
        extensions: z.looseObject({ code: z.union([z.string(), z.number()]).optional() }).nullish(),
      }),
    )
    .nullish(),
});

/** String `extensions.code` values seen from GraphQL servers, as the HTTP status they mean. */
const STATUS_OF_CODE: Readonly<Record<string, number>> = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  BAD_USER_INPUT: 400,
  GRAPHQL_VALIDATION_FAILED: 400,
  GRAPHQL_PARSE_FAILED: 400,
  INVALID_ARGUMENT: 400,
  ALREADY_EXISTS: 409,
  CONFLICT: 409,
  INTERNAL_SERVER_ERROR: 500,
  INTERNAL: 500,
};

/** Messages the platform sends for failures that pass on their own (platform-facts.md). */
const TRANSIENT_MESSAGE = /please try again/i;

/**
 * The platform's GraphQL endpoint. A 200 whose body has `errors` is a failure like any other,
 * classified by the first error's `extensions.code` (a status number such as 403, or a name such
 * as FORBIDDEN); "please try again" messages are transient.
 */
export class GraphqlClient {
  constructor(
    private readonly options: {
      readonly http: HttpCaller;
      readonly authorization: BearerAuthorization;
      readonly baseUrl: URL;
    },
  ) {}

  async request<S extends z.ZodType>(
    operation: GraphqlOperation<S>,
    variables: Readonly<Record<string, unknown>>,
    signal?: AbortSignal,
  ): Promise<z.output<S>> {
    return this.options.http.call({
      operation: operation.operationName,
      method: 'POST',
      route: `${GRAPHQL_PATH} ${operation.operationName}`,
      url: appendPath(this.options.baseUrl, GRAPHQL_PATH),
      allowedOrigin: this.options.baseUrl.origin,
      idempotent: operation.kind === 'query',
      // A query may read a page of a list; a mutation answers about one object.
      answer: operation.kind === 'query' ? 'page' : 'single',
      gated: true,
      authorization: this.options.authorization,
      body: {
        json: {
          query: operation.document,
          variables,
          operationName: operation.operationName,
        },
      },
      signal,
      parse: (response) => parseGraphqlResponse(response, operation),
    });
  }
}

function parseGraphqlResponse<S extends z.ZodType>(
  response: IncomingResponse,
  operation: GraphqlOperation<S>,
): z.output<S> {
  const name = operation.operationName;
  const parsed = responseSchema.safeParse(readAnswerJson(response, name));
  if (!parsed.success) {
    throw malformedResponse({
      operation: name,
      status: response.status,
      problem: `not a GraphQL response (${fieldsOf(parsed.error)})`,
      notJson: false,
      requestId: response.requestId,
    });
  }
  const [first] = parsed.data.errors ?? [];
  if (first !== undefined) throw errorFromGraphql(name, first, response.requestId);
  const data = operation.data.safeParse(parsed.data.data);
  if (!data.success) {
    throw malformedResponse({
      operation: name,
      status: response.status,
      problem: `unexpected data (${fieldsOf(data.error)})`,
      notJson: false,
      requestId: response.requestId,
    });
  }
  return data.data;
}

function errorFromGraphql(
  operation: string,
  error: {
    message?: string | undefined;
    extensions?: { code?: string | number | undefined } | null | undefined;
  },
  requestId: string | undefined,
): PlatformError {
  const message = error.message ?? 'the GraphQL operation failed';
  const rawCode = error.extensions?.code;
  const code = rawCode === undefined ? undefined : String(rawCode);
  if (TRANSIENT_MESSAGE.test(message)) {
    // The access check failed before the operation ran: nothing happened, and it passes.
    return new UnavailableError({ operation, code, message, requestId, mayHaveTakenEffect: false });
  }
  const numeric = typeof rawCode === 'number' ? rawCode : Number(code);
  const status =
    Number.isInteger(numeric) && numeric >= 400 && numeric < 600
      ? numeric
      : ((code === undefined ? undefined : STATUS_OF_CODE[code.toUpperCase()]) ?? 500);
  return errorFromStatus({ operation, status, code, message, requestId });
}
