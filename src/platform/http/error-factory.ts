import { answerCostProblem } from './answer-limits.js';
import { readDocumentRefusal } from './document-refusal.js';
import {
  AuthenticationError,
  ConflictError,
  DocumentRefusedError,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  PlatformConnectionError,
  PlatformTimeoutError,
  ProtocolError,
  RateLimitedError,
  UnavailableError,
  type PlatformError,
  type PlatformErrorDetails,
} from './platform-errors.js';

/** paw's own codes for failures that carry none from the platform. */
export const LocalErrorCode = {
  malformedResponse: 'MALFORMED_RESPONSE',
  unexpectedResponse: 'UNEXPECTED_RESPONSE',
  connectTimeout: 'TIMEOUT_CONNECT',
  headersTimeout: 'TIMEOUT_HEADERS',
  bodyTimeout: 'TIMEOUT_BODY',
  /** An answer larger, or nested deeper, than paw accepts from that endpoint (not retried). */
  oversizedResponse: 'RESPONSE_TOO_LARGE',
  /** A GraphQL document the platform refused to run (`[QueryAnalysisError]`): not retried. */
  documentRefused: 'DOCUMENT_REFUSED',
} as const;

/** Longest platform message kept in an error (an HTML error page is not a message). */
const MAX_MESSAGE_LENGTH = 300;

export interface FailedResponse {
  readonly operation: string;
  readonly status: number;
  /** The response body as text ('' when empty). */
  readonly body: string;
  readonly requestId?: string | undefined;
}

/**
 * Classifies a non-2xx response into one typed error, whatever shape its body has: the REST
 * envelope (`{error: {code, message}}`), the gateway's and token endpoint's `{code, message}`,
 * a cluster's `{errorType, message}`, OAuth's `{error, error_description}`, GraphQL's `{errors}`,
 * or no body at all (a bare 429). A refused GraphQL document (`[QueryAnalysisError]`) is a
 * {@link DocumentRefusedError}.
 */
export function errorFromResponse(response: FailedResponse): PlatformError {
  return classify(response, response.status, readFailureBody(response.body));
}

/**
 * The failure a 2xx answer carries instead of a result: the platform answers every GraphQL
 * failure but the rate limit with HTTP 200, and one that stops a request before it runs (a
 * refused document) as the gateway's body `{code, uri, traceSpan, message}`, its status in
 * `code`. Undefined when `json` is not such a body (a GraphQL result has `data` or `errors`).
 */
export function errorInAnswer(answer: {
  readonly operation: string;
  readonly json: unknown;
  readonly requestId?: string | undefined;
}): PlatformError | undefined {
  const { json } = answer;
  if (!isRecord(json) || 'data' in json || 'errors' in json) return undefined;
  const status = Number(json['code']);
  if (!Number.isInteger(status) || status < 400 || status >= 600) return undefined;
  if (typeof json['message'] !== 'string') return undefined;
  return classify(answer, status, failureFields(json));
}

function classify(
  response: { readonly operation: string; readonly requestId?: string | undefined },
  status: number,
  body: FailureBody,
): PlatformError {
  // The platform's trace id is what its support asks for when no request id header came.
  const requestId = response.requestId ?? body.traceId;
  const refusal =
    body.fullMessage === undefined ? undefined : readDocumentRefusal(body.fullMessage);
  if (refusal !== undefined) {
    return new DocumentRefusedError({
      operation: response.operation,
      status,
      code: LocalErrorCode.documentRefused,
      requestId,
      violations: refusal.violations,
      refused: refusal.names,
    });
  }
  return errorFromStatus({
    operation: response.operation,
    status,
    code: body.code,
    message: body.message ?? `the platform answered HTTP ${status}`,
    requestId,
  });
}

interface StatusFailure {
  readonly operation: string;
  readonly status: number;
  readonly code: string | undefined;
  readonly message: string;
  readonly requestId?: string | undefined;
}

/** Classifies by HTTP status (or a status-like code, as GraphQL's `extensions.code` is). */
export function errorFromStatus(failure: StatusFailure): PlatformError {
  const details = {
    operation: failure.operation,
    status: failure.status,
    code: failure.code,
    message: failure.message,
    requestId: failure.requestId,
    mayHaveTakenEffect: mayHaveTakenEffect(failure.status),
  } satisfies PlatformErrorDetails;
  const status = failure.status;
  if (status === 401) return new AuthenticationError(details);
  if (status === 403) return new PermissionError(details);
  if (status === 404) return new NotFoundError(details);
  if (status === 409) return new ConflictError(details);
  if (status === 429) return new RateLimitedError(details);
  if (status === 408 || status === 504) return new PlatformTimeoutError(details);
  if (status >= 400 && status < 500) return new InvalidRequestError(details);
  if (status >= 500) return new UnavailableError(details);
  return new ProtocolError({ ...details, mayHaveTakenEffect: true });
}

/**
 * Whether a request answered with this status may have been acted on. A 4xx was refused; a 429
 * and a gateway 502/503 never reached (or were refused by) the service. A 500 or 504 may have
 * happened half-way, so they count as "may have".
 */
function mayHaveTakenEffect(status: number): boolean {
  if (status >= 400 && status < 500) return false;
  return !(status === 502 || status === 503);
}

/** What paw reads of an error body. */
interface FailureBody {
  readonly code?: string | undefined;
  /** The message, shortened to one line (see {@link shorten}). */
  readonly message?: string | undefined;
  /** The message as it came: a refused document's violations may lie past the shortened part. */
  readonly fullMessage?: string | undefined;
  /** The platform's trace id (`traceSpan.traceId` of the gateway's body). */
  readonly traceId?: string | undefined;
}

/** Code and message of an error body, whichever of the platform's shapes it has. */
function readFailureBody(body: string): FailureBody {
  // A failure is classified by its status; a body too costly to parse just has no message.
  if (answerCostProblem(body) !== undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    const text = body.trim();
    return text === '' ? {} : { message: shorten(text) };
  }
  return isRecord(parsed) ? failureFields(parsed) : {};
}

function failureFields(parsed: Readonly<Record<string, unknown>>): FailureBody {
  const envelopeError = parsed['error'];
  if (isRecord(envelopeError)) {
    return { code: text(envelopeError['code']), message: text(envelopeError['message']) };
  }
  if (typeof envelopeError === 'string') {
    // OAuth (RFC 6749 section 5.2).
    return { code: envelopeError, message: text(parsed['error_description']) ?? envelopeError };
  }
  const errors = parsed['errors'];
  if (Array.isArray(errors) && isRecord(errors[0])) {
    const first = errors[0];
    const extensions = first['extensions'];
    return {
      code: isRecord(extensions) ? text(extensions['code']) : undefined,
      message: text(first['message']),
    };
  }
  const message = parsed['message'];
  const traceSpan = parsed['traceSpan'];
  return {
    code: text(parsed['code']) ?? text(parsed['errorType']),
    message: text(message),
    fullMessage: typeof message === 'string' ? message : undefined,
    traceId: isRecord(traceSpan) ? text(traceSpan['traceId']) : undefined,
  };
}

export interface TransportFailure {
  readonly operation: string;
  readonly error: unknown;
}

/**
 * Classifies a failure without a response (undici's error codes are stable, see
 * `undici/lib/core/errors.js`). A connection that was never opened provably did nothing; one
 * that broke after the request went out may have.
 */
export function errorFromTransport(failure: TransportFailure): PlatformError {
  const code = errorCode(failure.error);
  const operation = failure.operation;
  const cause = failure.error;
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return new PlatformTimeoutError({
        operation,
        code: LocalErrorCode.connectTimeout,
        message: 'timed out opening a connection',
        mayHaveTakenEffect: false,
        cause,
      });
    case 'UND_ERR_HEADERS_TIMEOUT':
      return new PlatformTimeoutError({
        operation,
        code: LocalErrorCode.headersTimeout,
        message: 'timed out waiting for the response',
        mayHaveTakenEffect: true,
        cause,
      });
    case 'UND_ERR_BODY_TIMEOUT':
      return new PlatformTimeoutError({
        operation,
        code: LocalErrorCode.bodyTimeout,
        message: 'timed out reading the response body',
        mayHaveTakenEffect: true,
        cause,
      });
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return new PlatformConnectionError({
        operation,
        code,
        message: `could not connect (${code})`,
        mayHaveTakenEffect: false,
        cause,
      });
    default:
      return new PlatformConnectionError({
        operation,
        code: code ?? 'CONNECTION_FAILED',
        message: `the connection failed (${code ?? describeCause(failure.error)})`,
        mayHaveTakenEffect: true,
        cause,
      });
  }
}

/** A 2xx whose body paw cannot use: not JSON, or not the shape the contract promises. */
export function malformedResponse(options: {
  operation: string;
  status: number;
  problem: string;
  /** True when the body was not even JSON: likely a broken proxy or a cut-off body, worth a retry. */
  notJson: boolean;
  requestId?: string | undefined;
}): ProtocolError {
  return new ProtocolError({
    operation: options.operation,
    status: options.status,
    code: options.notJson ? LocalErrorCode.malformedResponse : LocalErrorCode.unexpectedResponse,
    message: `unusable response: ${options.problem}`,
    requestId: options.requestId,
    mayHaveTakenEffect: true,
  });
}

/**
 * A 2xx answer paw will not parse: larger than its endpoint's bound, or nested too deep. Not
 * retried: the platform would answer the same.
 */
export function oversizedResponse(options: {
  operation: string;
  status: number;
  problem: string;
  requestId?: string | undefined;
}): ProtocolError {
  return new ProtocolError({
    operation: options.operation,
    status: options.status,
    code: LocalErrorCode.oversizedResponse,
    message: `unusable response: ${options.problem}`,
    requestId: options.requestId,
    mayHaveTakenEffect: true,
  });
}

function errorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current != null && depth < 4; depth++) {
    if (typeof current === 'object' && 'code' in current && typeof current.code === 'string') {
      return current.code;
    }
    current = typeof current === 'object' && 'cause' in current ? current.cause : undefined;
  }
  return undefined;
}

function describeCause(error: unknown): string {
  return error instanceof Error ? error.name : 'unknown error';
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return shorten(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/**
 * The platform's message as one line of at most {@link MAX_MESSAGE_LENGTH} characters: its line
 * breaks become spaces, so that wherever it is printed (a terminal, a table) it cannot start a
 * line of its own and pass for one of paw's, or for a log record.
 */
function shorten(value: string): string {
  const line = value.replace(/\s*[\r\n]+\s*/g, ' ');
  return line.length > MAX_MESSAGE_LENGTH ? `${line.slice(0, MAX_MESSAGE_LENGTH)}…` : line;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
