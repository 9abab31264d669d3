import { SCHEMA_DIFFERS_FIX } from './document-refusal.js';

/**
 * The typed failures of every platform call. Each is classified once, where the response (or
 * the transport failure) is seen (`error-factory.ts`), so callers branch on the class or on
 * `kind`, never on a status or a message.
 */
export type PlatformErrorKind =
  | 'authentication'
  | 'permission'
  | 'not_found'
  | 'invalid'
  | 'conflict'
  | 'rate_limited'
  | 'unavailable'
  | 'timeout'
  | 'connection'
  | 'protocol';

export interface PlatformErrorDetails {
  /** The operation that failed: a REST operationId, a GraphQL operation name, `clientToken`... */
  readonly operation: string;
  /** The platform's human-readable message, or paw's own for a failure without a response. */
  readonly message: string;
  /** HTTP status, when a response arrived. */
  readonly status?: number | undefined;
  /** Machine-readable code from the platform (`NOT_FOUND`, `16`...) or paw's own (`TIMEOUT_HEADERS`). */
  readonly code?: string | undefined;
  /** The platform's request id, when it sent one: what support asks for. */
  readonly requestId?: string | undefined;
  /**
   * False only when the request provably did nothing (refused before the platform acted on it:
   * a 429, a gateway 502/503, a connection never opened). True means "unknown": a request with a
   * side effect (a snapshot trigger) must be reconciled before it is sent again.
   */
  readonly mayHaveTakenEffect: boolean;
  readonly cause?: unknown;
}

export abstract class PlatformError extends Error {
  abstract readonly kind: PlatformErrorKind;
  readonly operation: string;
  readonly status: number | undefined;
  readonly code: string | undefined;
  readonly requestId: string | undefined;
  readonly mayHaveTakenEffect: boolean;
  /** The platform's own message, without paw's prefix. */
  readonly platformMessage: string;

  constructor(details: PlatformErrorDetails) {
    super(describe(details), details.cause === undefined ? undefined : { cause: details.cause });
    this.operation = details.operation;
    this.status = details.status;
    this.code = details.code;
    this.requestId = details.requestId;
    this.mayHaveTakenEffect = details.mayHaveTakenEffect;
    this.platformMessage = details.message;
  }
}

function describe(details: PlatformErrorDetails): string {
  const facts = [
    details.status === undefined ? undefined : `HTTP ${details.status}`,
    details.code === undefined ? undefined : `code ${details.code}`,
    details.requestId === undefined ? undefined : `request id ${details.requestId}`,
  ].filter((fact) => fact !== undefined);
  const suffix = facts.length === 0 ? '' : ` (${facts.join(', ')})`;
  return `${details.operation}: ${details.message}${suffix}`;
}

/** Missing, invalid or expired credentials or token (HTTP 401). */
export class AuthenticationError extends PlatformError {
  override readonly name: string = 'AuthenticationError';
  readonly kind = 'authentication' as const;
}

/** The credentials are valid but lack a permission (HTTP 403). */
export class PermissionError extends PlatformError {
  override readonly name: string = 'PermissionError';
  readonly kind = 'permission' as const;
}

/** An unknown workload, SLA Domain, cluster, job or session (HTTP 404). */
export class NotFoundError extends PlatformError {
  override readonly name: string = 'NotFoundError';
  readonly kind = 'not_found' as const;
}

/** The request itself is wrong (HTTP 400 and other 4xx), or paw refused to send it. */
export class InvalidRequestError extends PlatformError {
  override readonly name: string = 'InvalidRequestError';
  readonly kind = 'invalid' as const;
}

/**
 * The platform refused a GraphQL document before running any of it (its `[QueryAnalysisError]`,
 * HTTP 200 or 400): the account's schema lacks a field, argument or type the document uses, or
 * uses it differently. Permanent: the same document is refused until paw's schema is the
 * account's. `platformMessage` is the platform's violations; `message` adds the fix.
 */
export class DocumentRefusedError extends InvalidRequestError {
  override readonly name: string = 'DocumentRefusedError';
  /** The platform's violation sentences, each with its line and column in the document. */
  readonly violations: readonly string[];
  /** What they name: `Type.field`, `Type.field(argument)` or a type. */
  readonly refused: readonly string[];

  constructor(
    details: Omit<PlatformErrorDetails, 'message' | 'mayHaveTakenEffect'> & {
      readonly violations: readonly string[];
      readonly refused: readonly string[];
    },
  ) {
    const naming = details.refused.length === 0 ? '' : `, naming ${details.refused.join(', ')}`;
    super({
      ...details,
      message: `the platform refused paw's document${naming}: ${details.violations.join(' ')}`,
      // Refused before any of it ran.
      mayHaveTakenEffect: false,
    });
    this.message +=
      ". The account's GraphQL schema differs from the one this paw was built against: " +
      SCHEMA_DIFFERS_FIX;
    this.violations = details.violations;
    this.refused = details.refused;
  }
}

/** The request conflicts with the platform's state (HTTP 409): a taken name, a precondition. */
export class ConflictError extends PlatformError {
  override readonly name: string = 'ConflictError';
  readonly kind = 'conflict' as const;
}

/** The platform's gateway answered 429. */
export class RateLimitedError extends PlatformError {
  override readonly name: string = 'RateLimitedError';
  readonly kind = 'rate_limited' as const;
}

/** The platform or a part of it is failing or unreachable behind its gateway (5xx). */
export class UnavailableError extends PlatformError {
  override readonly name: string = 'UnavailableError';
  readonly kind = 'unavailable' as const;
}

/** A connect, headers or body timeout fired, or a gateway timed out (504, 408). */
export class PlatformTimeoutError extends PlatformError {
  override readonly name: string = 'PlatformTimeoutError';
  readonly kind = 'timeout' as const;
}

/** The connection could not be opened or broke (refused, reset, DNS). */
export class PlatformConnectionError extends PlatformError {
  override readonly name: string = 'PlatformConnectionError';
  readonly kind = 'connection' as const;
}

/** The platform answered something paw cannot use: a malformed body, a repeated cursor, a bad link. */
export class ProtocolError extends PlatformError {
  override readonly name: string = 'ProtocolError';
  readonly kind = 'protocol' as const;
}

/** A link or address points at an origin other than the one that holds the token; nothing was sent. */
export class ForeignOriginError extends ProtocolError {
  override readonly name: string = 'ForeignOriginError';
}

/** An on-demand snapshot of a workload type the platform cannot snapshot; nothing was sent. */
export class UnsupportedWorkloadTypeError extends InvalidRequestError {
  override readonly name: string = 'UnsupportedWorkloadTypeError';
}

/** A personal-access-token session on a cluster older than 9.6.0. */
export class UnsupportedClusterVersionError extends InvalidRequestError {
  override readonly name: string = 'UnsupportedClusterVersionError';
}

export function isPlatformError(error: unknown): error is PlatformError {
  return error instanceof PlatformError;
}
