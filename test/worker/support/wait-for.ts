/** Polls `condition` until it holds; fails after `timeoutMs` with `what` (no timing goal: generous). */
export async function waitFor(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 60_000,
  intervalMs = 100,
): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Resolves with the exit of a process, or fails after `timeoutMs` naming `what`. */
export async function exitWithin<T>(
  exited: Promise<T>,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      exited,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not exit in time`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
