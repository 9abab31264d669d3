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
