import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** What a slow client saw: whether the server hung up before it was done, and what it answered. */
export interface SlowClientResult {
  readonly closedByServer: boolean;
  /** Bytes the client had sent when the server hung up (or in all). */
  readonly bytesSent: number;
  readonly response: string;
}

/**
 * A raw TCP client to an HTTP server at `url`: it sends `head` at once, then `trickle` one byte
 * every `intervalMs`, the way a slow or hostile client holds a connection open, and stops as soon
 * as the server hangs up. With an empty `trickle` it stays silent for `silentMs`.
 */
export async function slowClient(
  url: string,
  head: string,
  trickle: string,
  options: { readonly intervalMs: number; readonly silentMs?: number },
): Promise<SlowClientResult> {
  const socket = await open(url);
  let response = '';
  let closedByServer = false;
  socket.on('data', (chunk: Buffer) => (response += chunk.toString('latin1')));
  socket.on('end', () => (closedByServer = true));
  socket.on('close', () => (closedByServer = true));
  // Writing after the server hung up fails (EPIPE, ECONNRESET): that is the hang-up, seen.
  socket.on('error', () => (closedByServer = true));
  let bytesSent = 0;
  if (head !== '') {
    socket.write(head);
    bytesSent += head.length;
  }
  for (const byte of trickle) {
    await sleep(options.intervalMs);
    if (closedByServer) break;
    socket.write(byte);
    bytesSent += 1;
  }
  const silentUntil = Date.now() + (options.silentMs ?? 0);
  while (!closedByServer && Date.now() < silentUntil) await sleep(50);
  // A last moment for a hang-up that came with the final byte.
  await sleep(options.intervalMs);
  socket.destroy();
  return { closedByServer, bytesSent, response };
}

/** A TCP connection to `url`'s host and port, once connected. */
export async function open(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return socket;
}
