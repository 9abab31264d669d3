/** How long {@link eventually} waits by default: generous, since no test holds a timing goal. */
const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * Polls `check` until it returns something other than `undefined` or `false`, and returns that;
 * fails after `timeoutMs` naming `what`. The one way the tests wait for something (timing goals
 * live in bench/, so the default is generous). Free of Vitest: the chaos suite uses it too.
 */
export async function eventually<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  options: { readonly timeoutMs?: number; readonly intervalMs?: number } = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const intervalMs = options.intervalMs ?? 50;
  const started = Date.now();
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() - started > timeoutMs) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
