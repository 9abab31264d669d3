import { tcpConnectError } from '../shared/connect-error.js';
import { redisErrorCause } from './redis-error-log.js';

const UNKNOWN_MASTER = 'answers, but does not know the master name';

/** How long a sentinel that said nothing but "closed" is given to accept a connection again. */
const PROBE_MS = 1_000;

/**
 * What each sentinel said while a connection looked for its primary, from ioredis's
 * `sentinelError` events, so that a connection that gives up can say what it tried: "127.0.0.1:26379:
 * connection refused; 127.0.0.1:26380: does not know the master name paw-primary". ioredis tells
 * these only as message text: `failed to connect to sentinel <host:port> because <error>`, and
 * `connected to sentinel <host:port> successfully, but got an invalid reply: null`; a sentinel
 * that monitors no master of that name answers the latter, or (Redis 7) the former with
 * `ERR No such master with that name`.
 */
export class SentinelAnswers {
  private readonly answers = new Map<string, string>();

  constructor(private readonly masterName: string) {}

  /** A `sentinelError` listener: `redis.on('sentinelError', answers.listener)`. */
  readonly listener = (error: unknown): void => {
    const message = error instanceof Error ? error.message : String(error);
    const failed = /^failed to connect to sentinel (\S+) because (.*)$/s.exec(message);
    const reply = /^connected to sentinel (\S+) successfully, but got an invalid reply/.exec(
      message,
    );
    const address = failed?.[1] ?? reply?.[1];
    if (address === undefined) return;
    const unknownMaster = reply !== null || /no such master/i.test(failed?.[2] ?? '');
    this.answers.set(
      address,
      unknownMaster ? `${UNKNOWN_MASTER} ${this.masterName}` : (failed?.[2] ?? 'an error'),
    );
  };

  /**
   * `host:port: what it said; ...`, or undefined when no sentinel has answered yet. ioredis
   * reports a sentinel it could not reach as "Connection is closed" (it drops the cause): such a
   * sentinel is tried once more with a plain TCP connection, to say whether it refused, timed
   * out or accepted.
   */
  async describe(): Promise<string | undefined> {
    if (this.answers.size === 0) return undefined;
    const described = await Promise.all(
      [...this.answers].map(async ([address, answer]) => {
        if (/command timed out/i.test(answer)) {
          return `${address}: accepts connections but did not answer in time`;
        }
        if (!/connection is closed/i.test(answer)) {
          const code = /\b(E[A-Z]{3,})\b/.exec(answer)?.[1];
          return `${address}: ${answer.startsWith(UNKNOWN_MASTER) ? answer : redisErrorCause({ message: answer, code })}`;
        }
        const at = address.lastIndexOf(':');
        const code = await tcpConnectError(
          address.slice(0, at),
          Number(address.slice(at + 1)),
          PROBE_MS,
        );
        return `${address}: ${
          code === undefined
            ? 'accepts connections but closed the one paw made (a password or TLS it expects?)'
            : redisErrorCause({ message: code, code })
        }`;
      }),
    );
    return described.join('; ');
  }
}
