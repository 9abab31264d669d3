import type { Shutdown } from '../lifecycle/shutdown.js';

/** Resolves when the shutdown begins (the first SIGTERM or SIGINT), for long-running commands. */
export function untilShutdownBegins(shutdown: Shutdown): Promise<void> {
  return new Promise<void>((resolve) => {
    if (shutdown.signal.aborted) resolve();
    else shutdown.signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** The `--kinds a,b` option: a comma-separated list, checked later against the registry. */
export function parseKindList(text: string): string[] {
  return text
    .split(',')
    .map((kind) => kind.trim())
    .filter((kind) => kind !== '');
}
