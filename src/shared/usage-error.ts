/**
 * An error the user fixes by changing how paw is invoked or configured (a bad flag, a broken
 * config file, an invalid job definition). Commands exit with code 2 on it; its message must
 * name the problem and the fix, and must never contain a secret.
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly exitCode = 2;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

export function isUsageError(error: unknown): error is UsageError {
  return error instanceof UsageError;
}
