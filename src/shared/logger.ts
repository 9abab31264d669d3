import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';

export type { Logger } from 'pino';

/**
 * Field names whose values are secrets wherever they appear in a log record. pino's `redact`
 * matches exact paths, so each name is listed at the top level and one and two levels down
 * (`{ headers: { authorization } }`, `{ req: { headers: { authorization } } }`).
 */
const SECRET_FIELD_NAMES = [
  'authorization',
  'Authorization',
  'cookie',
  'clientSecret',
  'client_secret',
  'secret',
  'token',
  'accessToken',
  'access_token',
  'refreshToken',
  'refresh_token',
  'sessionToken',
  'password',
  'code_verifier',
  'codeVerifier',
] as const;

const REDACTED_PATHS: readonly string[] = SECRET_FIELD_NAMES.flatMap((name) => [
  name,
  `*.${name}`,
  `*.*.${name}`,
]);

export interface LoggerOptions {
  readonly level?: LevelWithSilent;
  /** Where records go: a pino destination stream; standard error by default. */
  readonly destination?: DestinationStream;
  /** Bound into every record, e.g. `{ component: 'worker' }`. */
  readonly base?: Record<string, unknown>;
}

/**
 * Creates paw's structured logger. Every record is JSON; known secret fields are replaced with
 * `[redacted]` whatever level they are logged at. Redaction is the last line of defence: code
 * must still never put a secret into a message string or an error.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { pid: process.pid, ...options.base },
      redact: { paths: [...REDACTED_PATHS], censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination ?? pino.destination({ fd: 2, sync: false }),
  );
}

/** A logger that drops everything, for library callers that pass none. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
