import type { Logger } from '../shared/logger.js';

/** Errors are logged at most this often per connection: while Redis refuses, ioredis reports every retry. */
const REDIS_ERROR_LOG_INTERVAL_MS = 30_000;

/** Causes a generic "the connection is closed" hides; the log names the real one. */
const GENERIC = /connection is closed|stream isn't writeable|connection in closed state/i;

/**
 * The cause of a Redis error in a few words an operator acts on: the server's refusal
 * (`WRONGPASS`, `NOAUTH`, `NOPERM`), a TLS failure (certificate untrusted, hostname mismatch), a
 * connection failure (refused, timed out, unknown host). Never the command or its arguments:
 * an ioredis error carries them (`command.args`: an AUTH password among them).
 */
export function redisErrorCause(error: unknown): string {
  const { message, code } = error as { message?: unknown; code?: unknown };
  const text = typeof message === 'string' ? message : String(error);
  const refusal =
    /^(WRONGPASS|NOAUTH|NOPERM|ERR AUTH|ERR invalid password|LOADING|READONLY|MASTERDOWN)\b[^\n]*/.exec(
      text,
    )?.[0];
  if (refusal !== undefined) return refusal.slice(0, 200);
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused (ECONNREFUSED): is Redis running at that address?';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `unknown host (${code})`;
    case 'ETIMEDOUT':
      return 'connection timed out (ETIMEDOUT)';
    case 'ECONNRESET':
      return 'connection reset (ECONNRESET)';
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'CERT_UNTRUSTED':
      return `TLS: certificate untrusted (${code}): give redis.tls.caFile the CA that signed the server's certificate`;
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `TLS: the certificate does not name this host (${code})`;
    case 'CERT_HAS_EXPIRED':
      return `TLS: the server's certificate has expired (${code})`;
    default:
      return text.split('\n')[0]?.slice(0, 200) ?? 'unknown Redis error';
  }
}

/**
 * Removes what an ioredis error carries beyond its message (the command and its arguments), so
 * that no logger, default handler or console dump can print them. Returns the same error.
 */
export function withoutCommand<T>(error: T): T {
  if (typeof error === 'object' && error !== null && 'command' in error) {
    try {
      delete (error as { command?: unknown }).command;
    } catch {
      // A frozen error: its message is all anyone prints through paw's logger.
    }
  }
  return error;
}

/**
 * The one way paw reports a Redis connection's errors: through the redacting logger, at most
 * once per interval, naming the real cause (a "connection is closed" that follows a refusal
 * is reported as the refusal), never a command's arguments.
 */
export class RedisErrorLog {
  private lastLogged = 0;
  private lastCause: string | undefined;
  private suppressed = 0;

  constructor(
    private readonly logger: Logger | undefined,
    private readonly fields: Readonly<Record<string, unknown>>,
    private readonly intervalMs = REDIS_ERROR_LOG_INTERVAL_MS,
  ) {}

  /** An error event's listener: `emitter.on('error', log.listener)`. */
  readonly listener = (error: unknown): void => {
    this.report(error);
  };

  report(error: unknown): void {
    withoutCommand(error);
    const cause = redisErrorCause(error);
    const generic = GENERIC.test(cause);
    if (!generic) this.lastCause = cause;
    const now = Date.now();
    if (this.logger === undefined || now - this.lastLogged < this.intervalMs) {
      this.suppressed++;
      return;
    }
    this.lastLogged = now;
    const suppressed = this.suppressed;
    this.suppressed = 0;
    this.logger.warn(
      {
        ...this.fields,
        cause: generic && this.lastCause !== undefined ? this.lastCause : cause,
        ...(suppressed > 0 ? { repeatedSinceLastLog: suppressed } : {}),
      },
      'Redis connection error; retrying',
    );
  }
}
