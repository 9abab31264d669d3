/** The `error.code` values of docs/platform-model.md. */
export type RestErrorCode =
  | 'INVALID_ARGUMENT'
  | 'UNSUPPORTED_WORKLOAD_TYPE'
  | 'PERMISSION_DENIED'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'FAILED_PRECONDITION'
  | 'INTERNAL'
  | 'CLUSTER_UNAVAILABLE';

/** A failed task-based REST call: becomes the error envelope with `status`. */
export class RestError extends Error {
  override readonly name = 'RestError';

  constructor(
    readonly status: number,
    readonly code: RestErrorCode,
    message: string,
  ) {
    super(message);
  }

  static invalid(message: string): RestError {
    return new RestError(400, 'INVALID_ARGUMENT', message);
  }

  static notFound(message: string): RestError {
    return new RestError(404, 'NOT_FOUND', message);
  }
}

/** The envelope of a failure: `data` and `metadata` null. */
export function errorEnvelope(
  code: string,
  message: string,
): {
  data: null;
  error: { code: string; message: string };
  metadata: null;
} {
  return { data: null, error: { code, message }, metadata: null };
}

/** The envelope of a success. */
export function successEnvelope<T>(
  data: T,
  metadata: Record<string, unknown> | null = null,
): { data: T; error: null; metadata: Record<string, unknown> | null } {
  return { data, error: null, metadata };
}
