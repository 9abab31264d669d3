/**
 * Delay before retry number `retry` (1 for the first retry): exponential from `baseMs`, capped
 * at `maxMs`, with "equal jitter" (a random point in the upper half), so callers or jobs that
 * failed together do not come back together, yet none retries immediately. The one backoff
 * formula of paw: the HTTP retry layer and the queues' retries both use it.
 */
export function jitteredBackoff(
  retry: number,
  baseMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const exponent = Math.min(Math.max(0, retry - 1), 30);
  const ceiling = Math.min(maxMs, baseMs * 2 ** exponent);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
