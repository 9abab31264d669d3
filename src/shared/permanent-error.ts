/**
 * A failure that retrying cannot help, with the code its outcome record carries (e.g. a run
 * whose retention SLA Domain does not exist). The worker classifies failures in one place
 * (src/job-kinds/job-failure.ts): a subclass of this is never retried.
 */
export abstract class PermanentError extends Error {
  constructor(
    /** A short machine-readable code for outcome records (`RETENTION_SLA_NOT_FOUND`, ...). */
    readonly code: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
