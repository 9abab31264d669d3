import type { Logger } from 'pino';

const LEVEL_METHODS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace']);

/**
 * `logger.child(bindings)`, made only when something is logged at a level the logger writes.
 * A child costs its bindings' serialization and redaction when it is made; a snapshot item's
 * step makes one per run of its job (two per snapshot) and, at `warn`, usually logs nothing.
 * Calls at a level the logger does not write return at once, as pino's own would.
 */
export function lazyChild(logger: Logger, bindings: Record<string, unknown>): Logger {
  let child: Logger | undefined;
  const made = (): Logger => (child ??= logger.child(bindings));
  return new Proxy(logger, {
    get(target, property) {
      if (
        child === undefined &&
        typeof property === 'string' &&
        LEVEL_METHODS.has(property) &&
        !target.isLevelEnabled(property)
      ) {
        return noop;
      }
      const real = made();
      const value: unknown = Reflect.get(real, property);
      return typeof value === 'function'
        ? (value as (...args: unknown[]) => unknown).bind(real)
        : value;
    },
  });
}

function noop(): void {}
