import type { TadaDocumentNode } from 'gql.tada';
import {
  Kind,
  OperationTypeNode,
  print,
  type DocumentNode,
  type OperationDefinitionNode,
} from 'graphql';
import { z } from 'zod';
import type { Logger } from '../../shared/logger.js';
import { appendPath } from '../http/append-path.js';
import { errorFromStatus } from '../http/error-factory.js';
import type { BearerAuthorization, HttpCaller } from '../http/http-caller.js';
import type { AnswerSize } from '../http/answer-limits.js';
import type { IncomingResponse } from '../http/http-transport.js';
import { malformedAnswer, readAnswerJson } from '../http/parse-json-body.js';
import { UnavailableError, type PlatformError } from '../http/platform-errors.js';
import { fieldsOf } from '../rest/envelope.js';
import { AnswerMismatch, decodeAnswer, type SkippedRow } from './decode-answer.js';
import { platformSchema } from './schema/platform-schema.js';

const GRAPHQL_PATH = '/api/graphql';

/**
 * A document paw sends: a constant, typed by gql.tada from the published schema
 * (`graphql()` of schema/platform-graphql.ts); its input always travels as variables.
 */
export type GraphqlDocument<
  Result = unknown,
  Variables = Record<string, unknown>,
> = TadaDocumentNode<Result, Variables>;

/** What paw needs to know of a document to send it: its name, kind and text. */
export interface DocumentFacts {
  readonly operationName: string;
  /** Queries are repeated after a transient failure; mutations are not. */
  readonly kind: 'query' | 'mutation';
  readonly text: string;
}

const facts = new WeakMap<DocumentNode, DocumentFacts>();

/** The name, kind and text of a document's one operation (worked out once per document). */
export function documentFacts(document: DocumentNode): DocumentFacts {
  const known = facts.get(document);
  if (known !== undefined) return known;
  const operation = document.definitions.find(
    (definition): definition is OperationDefinitionNode =>
      definition.kind === Kind.OPERATION_DEFINITION,
  );
  if (operation?.name === undefined || operation.operation === OperationTypeNode.SUBSCRIPTION) {
    throw new Error('a document paw sends has one named query or mutation');
  }
  const found: DocumentFacts = {
    operationName: operation.name.value,
    kind: operation.operation,
    text: print(document),
  };
  facts.set(document, found);
  return found;
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
      readonly logger: Logger;
    },
  ) {}

  async request<Result, Variables>(
    document: GraphqlDocument<Result, Variables>,
    variables: Variables,
    signal?: AbortSignal,
    /** Not sent after this time (epoch ms): see CallSpec.sendBy. */
    sendBy?: number,
  ): Promise<Result> {
    const { operationName, kind } = documentFacts(document);
    const { data, skipped } = await this.post(document, variables, {
      // A query may read a page of a list; a mutation answers about one object.
      answer: kind === 'query' ? 'page' : 'single',
      signal,
      sendBy,
      parse: (response) => parseGraphqlResponse(response, document, operationName),
    });
    this.reportSkipped(operationName, skipped);
    return data as Result;
  }

  /**
   * Sends a document whose answer paw does not read against the published schema (the
   * doctor's probes and its introspection of the account's own schema): errors are classified
   * as for any request, `data` is returned as it came.
   */
  async requestUnchecked(
    document: DocumentNode,
    variables: Readonly<Record<string, unknown>>,
    options: {
      /** How large the answer may be: an introspection of the whole schema is a `document`. */
      readonly answer?: AnswerSize;
      readonly signal?: AbortSignal | undefined;
    } = {},
  ): Promise<unknown> {
    const { operationName } = documentFacts(document);
    return this.post(document, variables, {
      answer: options.answer ?? 'single',
      signal: options.signal,
      parse: (response) => graphqlData(response, operationName),
    });
  }

  /**
   * Posts `document` with `variables` to the endpoint, with the platform token, through the
   * request gate; a query may be repeated after a transient failure, a mutation never.
   */
  private post<T>(
    document: DocumentNode,
    variables: unknown,
    options: {
      readonly answer: AnswerSize;
      readonly signal: AbortSignal | undefined;
      readonly sendBy?: number | undefined;
      readonly parse: (response: IncomingResponse) => T;
    },
  ): Promise<T> {
    const { operationName, kind, text } = documentFacts(document);
    return this.options.http.call({
      operation: operationName,
      method: 'POST',
      route: `${GRAPHQL_PATH} ${operationName}`,
      url: appendPath(this.options.baseUrl, GRAPHQL_PATH),
      allowedOrigin: this.options.baseUrl.origin,
      idempotent: kind === 'query',
      answer: options.answer,
      gated: true,
      authorization: this.options.authorization,
      body: { json: { query: text, variables, operationName } },
      signal: options.signal,
      sendBy: options.sendBy,
      parse: options.parse,
    });
  }

  /**
   * Rows of an answer paw could not use (a field the schema says is never null came null, or
   * a row lacks what paw needs of it): logged, never failing the page they came in.
   */
  reportSkipped(operation: string, rows: readonly SkippedRow[]): void {
    if (rows.length === 0) return;
    this.options.logger.warn(
      { operation, skipped: rows.slice(0, 10), skippedCount: rows.length },
      `skipped ${rows.length} row(s) of the platform's ${operation} answer that paw cannot use`,
    );
  }
}

function parseGraphqlResponse(
  response: IncomingResponse,
  document: DocumentNode,
  name: string,
): { readonly data: unknown; readonly skipped: readonly SkippedRow[] } {
  const data = graphqlData(response, name);
  try {
    return decodeAnswer(platformSchema(), document, data);
  } catch (error) {
    if (!(error instanceof AnswerMismatch)) throw error;
    throw malformedAnswer(
      response,
      name,
      `the answer does not fit the published schema: ${error.message}`,
    );
  }
}

/** The `data` of a GraphQL response; a response with `errors` is the error they describe. */
function graphqlData(response: IncomingResponse, name: string): unknown {
  const parsed = responseSchema.safeParse(readAnswerJson(response, name));
  if (!parsed.success) {
    throw malformedAnswer(response, name, `not a GraphQL response (${fieldsOf(parsed.error)})`);
  }
  const [first] = parsed.data.errors ?? [];
  if (first !== undefined) throw errorFromGraphql(name, first, response.requestId);
  return parsed.data.data;
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
