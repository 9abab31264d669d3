import { z } from 'zod';
import { errorFromStatus } from '../http/error-factory.js';
import type { IncomingResponse } from '../http/http-transport.js';
import { malformedAnswer, readAnswerJson } from '../http/parse-json-body.js';
import type { PlatformError } from '../http/platform-errors.js';

/** The REST envelope (spec section 2): tolerant of extra fields at every level. */
const envelopeSchema = z.looseObject({
  data: z.unknown().optional(),
  error: z
    .looseObject({
      code: z.union([z.string(), z.number()]).optional(),
      message: z.string().optional(),
    })
    .nullable()
    .optional(),
  metadata: z.record(z.string(), z.unknown()).nullable().optional(),
});

export interface EnvelopeResult<T> {
  readonly data: T;
  /** The envelope's metadata (e.g. a job-status link), or null. */
  readonly metadata: Readonly<Record<string, unknown>> | null;
}

/**
 * The HTTP status an error code stands for, for the rare envelope that reports a failure with a
 * 2xx status: it is classified as if it had come with this status.
 */
const STATUS_OF_CODE: Readonly<Record<string, number>> = {
  INVALID_ARGUMENT: 400,
  UNSUPPORTED_WORKLOAD_TYPE: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  FAILED_PRECONDITION: 409,
  ABORTED: 409,
  RESOURCE_EXHAUSTED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  CLUSTER_UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
};

/**
 * Parses a 2xx REST response: the envelope, then `data` with the operation's schema. A body
 * that is not JSON, not an envelope, or whose data does not match is a ProtocolError naming the
 * fields at fault (never their values).
 */
export function parseEnvelope<S extends z.ZodType>(
  response: IncomingResponse,
  operation: string,
  dataSchema: S,
): EnvelopeResult<z.output<S>> {
  const fail = (problem: string, notJson: boolean): PlatformError =>
    malformedAnswer(response, operation, problem, notJson);
  const envelope = envelopeSchema.safeParse(readAnswerJson(response, operation));
  if (!envelope.success)
    throw fail(`not a {data, error, metadata} envelope (${fieldsOf(envelope.error)})`, false);
  const { error, data, metadata } = envelope.data;
  if (error != null) {
    const code = error.code === undefined ? undefined : String(error.code);
    throw errorFromStatus({
      operation,
      status: (code === undefined ? undefined : STATUS_OF_CODE[code]) ?? 500,
      code,
      message: error.message ?? 'the platform reported an error',
      requestId: response.requestId,
    });
  }
  const parsed = dataSchema.safeParse(data);
  if (!parsed.success) throw fail(`unexpected data (${fieldsOf(parsed.error)})`, false);
  return { data: parsed.data, metadata: metadata ?? null };
}

/** The paths of the fields at fault, without their values. */
export function fieldsOf(error: z.ZodError): string {
  const fields = error.issues.map((issue) => `${issue.path.join('.') || '(top)'}: ${issue.code}`);
  return [...new Set(fields)].slice(0, 5).join('; ');
}
