/** How long {@link eventually} waits by default: generous, since no test holds a timing goal. */
const DEFAULT_TIMEOUT_MS = 60_000;

export interface EventuallyOptions<U> {
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
  /** What the timeout's message adds after `what` (the last state seen, a process's output). */
  readonly detail?: () => string | Promise<string>;
  /**
   * What to return when `timeoutMs` passes, instead of failing: for bench/'s measurements, where
   * a thing that never happened is a figure of the report, not an error.
   */
  readonly otherwise?: () => U;
}

/**
 * Polls `check` until it returns something other than `undefined` or `false`, and returns that;
 * fails after `timeoutMs` naming `what` (a `check` that throws fails at once). The one way the
 * tests and bench/ wait for something (timing goals live in bench/, so the default is generous).
 * Free of Vitest.
 */
export async function eventually<T, U = never>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  options: EventuallyOptions<U> = {},
): Promise<T | U> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const intervalMs = options.intervalMs ?? 50;
  const started = Date.now();
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() - started > timeoutMs) {
      if (options.otherwise !== undefined) return options.otherwise();
      const detail = options.detail === undefined ? '' : `: ${await options.detail()}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
