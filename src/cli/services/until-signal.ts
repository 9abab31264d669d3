import type { Shutdown } from '../../shared/shutdown.js';

/** Resolves when the shutdown begins (the first SIGTERM or SIGINT), for long-running commands. */
function untilShutdownBegins(shutdown: Shutdown): Promise<void> {
  return new Promise<void>((resolve) => {
    if (shutdown.signal.aborted) resolve();
    else shutdown.signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/**
 * The life of a long-running command (`paw worker`, `paw scheduler`, `paw start`): signal
 * handlers first, so that a signal during start-up is not lost; then `startUp`, whose failure
 * closes what it had opened and is rethrown; then, at the first signal, `stopping` on the
 * terminal, the shutdown, and `stopped`.
 */
export async function serveUntilSignal(
  shutdown: Shutdown,
  status: (line: string) => void,
  stopping: string,
  startUp: () => Promise<void>,
): Promise<void> {
  shutdown.installSignalHandlers();
  const stopped = untilShutdownBegins(shutdown);
  try {
    await startUp();
  } catch (error) {
    await shutdown.run('start-up failed');
    throw error;
  }
  await stopped;
  status(stopping);
  await shutdown.run('signal');
  status('stopped');
}

/** The `--kinds a,b` option: a comma-separated list, checked later against the registry. */
export function parseKindList(text: string): string[] {
  return text
    .split(',')
    .map((kind) => kind.trim())
    .filter((kind) => kind !== '');
}
