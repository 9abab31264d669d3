export interface BackoffPolicy {
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

/**
 * Delay before retry number `retry` (1 for the first retry): capped exponential backoff with
 * "equal jitter" (half fixed, half random), so concurrent callers that failed together do not
 * come back together, yet none retries immediately.
 */
export function backoffDelay(
  retry: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.round(exponential / 2 + random() * (exponential / 2));
}
