import { connect } from 'node:net';

/**
 * Why a TCP connection to `host:port` fails (`ECONNREFUSED`, `ETIMEDOUT`, `ENOTFOUND`), or
 * undefined when it succeeds: for a message that must say what happened where a client library
 * reported only that its connection closed.
 */
export function tcpConnectError(
  host: string,
  port: number,
  timeoutMs: number,
): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (code: string | undefined): void => {
      socket.destroy();
      resolve(code);
    };
    socket.setTimeout(timeoutMs, () => done('ETIMEDOUT'));
    socket.once('connect', () => done(undefined));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code ?? 'error'));
  });
}
