import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A client that holds `count` idle TCP connections to `url` from `localAddress` (any of
 * 127.0.0.0/8 on Linux), re-opening each as soon as it closes, the way a hostile client in the
 * cluster would starve a server of connections. `stop()` closes them all.
 */
export function holdSockets(
  url: string,
  count: number,
  localAddress: string,
): { stop: () => void; opened: () => number } {
  const { hostname, port } = new URL(url);
  const sockets = new Set<Socket>();
  let stopped = false;
  let opened = 0;
  const openOne = (): void => {
    if (stopped) return;
    const socket = connect({ host: hostname, port: Number(port), localAddress });
    opened += 1;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('close', () => {
      sockets.delete(socket);
      // A fresh socket at once, but not in the same turn: the attacker is fast, not a busy loop.
      setTimeout(openOne, 1);
    });
  };
  for (let index = 0; index < count; index += 1) openOne();
  return {
    stop: () => {
      stopped = true;
      for (const socket of sockets) socket.destroy();
    },
    opened: () => opened,
  };
}

/**
 * Probes `url` (a path such as /healthz) as the kubelet does: a new connection each time from
 * `localAddress`, one second to answer. Returns how many of `times` probes, one every
 * `intervalMs`, were answered 200.
 */
export async function probe(
  url: string,
  localAddress: string,
  times: number,
  intervalMs: number,
): Promise<{ answered: number; statuses: string[] }> {
  const statuses: string[] = [];
  for (let index = 0; index < times; index += 1) {
    statuses.push(await probeOnce(url, localAddress));
    await sleep(intervalMs);
  }
  return { answered: statuses.filter((status) => status === '200').length, statuses };
}

function probeOnce(url: string, localAddress: string): Promise<string> {
  return new Promise((resolve) => {
    const request = httpRequest(url, {
      agent: false,
      localAddress,
      timeout: 1000,
      headers: { connection: 'close' },
    });
    request.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve(String(response.statusCode)));
    });
    request.on('timeout', () => {
      request.destroy();
      resolve('timeout');
    });
    request.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    request.end();
  });
}
