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
import { errorFromStatus, errorInAnswer } from '../http/error-factory.js';
import type { BearerAuthorization, HttpCaller } from '../http/http-caller.js';
import type { AnswerSize } from '../http/answer-limits.js';
import type { IncomingResponse } from '../http/http-transport.js';
import { malformedAnswer, readAnswerJson } from '../http/parse-json-body.js';
import { PermissionError, UnavailableError, type PlatformError } from '../http/platform-errors.js';
import { fieldsOf } from '../rest/envelope.js';
import {
  AnswerMismatch,
  answerPath,
  decodeAnswer,
  type SkippedRow,
  type WithheldField,
} from './decode-answer.js';
import { OPTIONAL_FIELDS } from './optional-fields.js';
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

/** One of `errors`: only its message and code must be usable; an odd path or trace is dropped. */
const errorSchema = z.looseObject({
  message: z.string().optional(),
  path: z
    .array(z.union([z.string(), z.number()]))
    .nullish()
    .catch(undefined),
  extensions: z
    .looseObject({
      code: z.union([z.string(), z.number()]).optional(),
      trace: z.looseObject({ traceId: z.string().optional() }).nullish().catch(undefined),
    })
    .nullish(),
});
type GraphqlError = z.output<typeof errorSchema>;

const responseSchema = z.looseObject({
  data: z.unknown().optional(),
  errors: z.array(errorSchema).nullish(),
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
 * The platform's GraphQL endpoint, reading each of the platform's answer shapes:
 * - a result: `data`, read against the published schema (decode-answer.ts);
 * - a failure: `errors`, classified by the first error's `extensions.code` (a status number
 *   such as 404, or a name such as FORBIDDEN; "please try again" messages are transient);
 * - fields withheld beside the rest of `data` (null, each with a 403 error naming its path: a
 *   feature flag, a licence or a role): a field paw can do without (optional-fields.ts) is
 *   logged as a warning and the rest used; any other fails the request, naming it;
 * - a document refused before it ran: HTTP 200 (or 400) with the gateway's body
 *   `{code, uri, traceSpan, message: "[QueryAnalysisError] ..."}`, a DocumentRefusedError
 *   naming what was refused (error-factory.ts).
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
    const { data, skipped, withheld } = await this.post(document, variables, {
      // A query may read a page of a list; a mutation answers about one object.
      answer: kind === 'query' ? 'page' : 'single',
      signal,
      sendBy,
      parse: (response) => parseGraphqlResponse(response, document, operationName, kind),
    });
    this.reportSkipped(operationName, skipped);
    this.reportWithheld(operationName, withheld);
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
      parse: (response) => {
        // A probe asks whether the account may use an operation: any error answers that.
        const { data, fieldErrors } = graphqlAnswer(response, operationName);
        const [first] = fieldErrors;
        if (first !== undefined) throw errorFromGraphql(operationName, first, response.requestId);
        return data;
      },
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

  /** Fields the platform withheld and paw does without: one warning naming each and why. */
  private reportWithheld(operation: string, fields: readonly Withheld[]): void {
    if (fields.length === 0) return;
    const byField = new Map<
      string,
      { field: string; rows: number; path: string; reason: string }
    >();
    for (const { field, path, reason } of fields) {
      const known = byField.get(field);
      if (known === undefined) byField.set(field, { field, rows: 1, path, reason });
      else known.rows++;
    }
    const named = [...byField.values()];
    const words = named.map(({ field, reason }) => `${field} (${reason})`).join(', ');
    this.options.logger.warn(
      { operation, withheld: named },
      `the platform withheld ${words} from its ${operation} answer: paw goes on without ${named.length === 1 ? 'it' : 'them'}`,
    );
  }
}

/** A field the platform withheld, with its reason: the 403 error's message. */
interface Withheld extends WithheldField {
  readonly reason: string;
}

function parseGraphqlResponse(
  response: IncomingResponse,
  document: DocumentNode,
  name: string,
  kind: DocumentFacts['kind'],
): {
  readonly data: unknown;
  readonly skipped: readonly SkippedRow[];
  readonly withheld: readonly Withheld[];
} {
  const { data, fieldErrors } = graphqlAnswer(response, name);
  const reasons = new Map(
    fieldErrors.map((error) => [answerPath(error.path ?? []), error] as const),
  );
  let decoded: ReturnType<typeof decodeAnswer>;
  try {
    decoded = decodeAnswer(platformSchema(), document, data, new Set(reasons.keys()));
  } catch (error) {
    if (!(error instanceof AnswerMismatch)) throw error;
    throw malformedAnswer(
      response,
      name,
      `the answer does not fit the published schema: ${error.message}`,
    );
  }
  const reasonAt = (path: string): string =>
    (reasons.get(path)?.message ?? 'no reason given').trim().replace(/\s+/g, ' ');
  const met = new Set(decoded.withheld.map((field) => field.path));
  const withheld: Withheld[] = [
    ...decoded.withheld.map((field) => ({ ...field, reason: reasonAt(field.path) })),
    // Under a value that came null anyway (its row, or a parent the platform nulled): paw read
    // nothing there, but the warning says why that value is missing.
    ...[...reasons.keys()]
      .filter((path) => !met.has(path))
      .map((path) => ({ path, field: path.replace(/\[\d+\]/g, ''), reason: reasonAt(path) })),
  ];
  const needed = decoded.withheld.filter((field) => !OPTIONAL_FIELDS.has(field.field));
  const [first] = needed;
  if (first !== undefined) {
    const fields = [...new Set(needed.map((field) => field.field))];
    const error = reasons.get(first.path);
    throw new PermissionError({
      operation: name,
      status: 403,
      code: error?.extensions?.code === undefined ? '403' : String(error.extensions.code),
      message:
        `the platform withheld ${fields.join(', ')} (at ${first.path}), which paw cannot do ` +
        `without: ${reasonAt(first.path).replace(/\.?$/, '.')} Enable the feature for the ` +
        `account, or give the service account a role that may read ${fields.length === 1 ? 'it' : 'them'}`,
      requestId: response.requestId ?? error?.extensions?.trace?.traceId,
      // The data came: the operation ran, and a mutation did what it does.
      mayHaveTakenEffect: kind === 'mutation',
    });
  }
  return { data: decoded.data, skipped: decoded.skipped, withheld };
}

/**
 * The `data` of a GraphQL answer and the errors of fields withheld beside it (each a 403 with
 * the `path` of a field, `data` present). A body that is the gateway's error (a refused
 * document) or whose `errors` say the request failed is the error they describe.
 */
function graphqlAnswer(
  response: IncomingResponse,
  name: string,
): { readonly data: unknown; readonly fieldErrors: readonly GraphqlError[] } {
  const json = readAnswerJson(response, name);
  const failure = errorInAnswer({ operation: name, json, requestId: response.requestId });
  if (failure !== undefined) throw failure;
  const parsed = responseSchema.safeParse(json);
  if (!parsed.success) {
    throw malformedAnswer(response, name, `not a GraphQL response (${fieldsOf(parsed.error)})`);
  }
  const { data, errors = [] } = parsed.data;
  const hasData = typeof data === 'object' && data !== null;
  const failed = (errors ?? []).find((error) => !hasData || !isWithheldField(error));
  if (failed !== undefined) throw errorFromGraphql(name, failed, response.requestId);
  return { data, fieldErrors: errors ?? [] };
}

/**
 * A field the platform withheld: a 403 naming the path of a field inside the operation's answer
 * (a 403 on the operation itself is the operation refused), not a transient access check.
 */
function isWithheldField(error: GraphqlError): boolean {
  const path = error.path ?? [];
  if (path.length < 2 || TRANSIENT_MESSAGE.test(error.message ?? '')) return false;
  return statusOf(error.extensions?.code) === 403;
}

function errorFromGraphql(
  operation: string,
  error: GraphqlError,
  requestId: string | undefined,
): PlatformError {
  const message = error.message ?? 'the GraphQL operation failed';
  const rawCode = error.extensions?.code;
  const code = rawCode === undefined ? undefined : String(rawCode);
  // The platform's trace id is what its support asks for when no request id header came.
  const id = requestId ?? error.extensions?.trace?.traceId;
  if (TRANSIENT_MESSAGE.test(message)) {
    // The access check failed before the operation ran: nothing happened, and it passes.
    return new UnavailableError({
      operation,
      code,
      message,
      requestId: id,
      mayHaveTakenEffect: false,
    });
  }
  // The platform's not-found messages start with their code (`NOT_FOUND: Unable to find ...`).
  const status = statusOf(rawCode) ?? (NOT_FOUND_MESSAGE.test(message) ? 404 : 500);
  return errorFromStatus({ operation, status, code, message, requestId: id });
}

const NOT_FOUND_MESSAGE = /^NOT_FOUND:/;

/** The HTTP status an `extensions.code` means: a status number, or a name such as FORBIDDEN. */
function statusOf(rawCode: string | number | undefined): number | undefined {
  if (rawCode === undefined) return undefined;
  const numeric = Number(rawCode);
  if (Number.isInteger(numeric) && numeric >= 400 && numeric < 600) return numeric;
  return STATUS_OF_CODE[String(rawCode).toUpperCase()];
}
