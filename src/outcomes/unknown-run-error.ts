/** No run has this id (it was never created, or has been trimmed). */
export class UnknownRunError extends Error {
  override readonly name = 'UnknownRunError';
  constructor(readonly runId: string) {
    super(`no outcome record for run ${runId}`);
  }
}

/**
 * Runs `call` (a script that writes for a run), turning the scripts' `PAW_NO_SUCH_RUN` error
 * reply into {@link UnknownRunError}.
 */
export async function withKnownRun<T>(runId: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof Error && error.message.includes('PAW_NO_SUCH_RUN')) {
      throw new UnknownRunError(runId);
    }
    throw error;
  }
}
