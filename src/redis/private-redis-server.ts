import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort } from '../shared/free-port.js';

/** Options for {@link startPrivateRedisServer}. */
export interface PrivateRedisServerOptions {
  /** The executable to run; `redis-server` from the PATH by default. */
  readonly command?: string;
  /** A fixed port (to restart a server on the same address); a free one when omitted. */
  readonly port?: number;
  /** Data directory; a fresh temporary one, removed on stop, when omitted. */
  readonly dir?: string;
  /** Turn on the append-only file so data survives a restart (chaos tests, the demo). */
  readonly appendOnly?: boolean;
  /** How long to wait for "Ready to accept connections"; 10 s by default. */
  readonly startTimeoutMs?: number;
  /** More `redis-server` arguments (a password, TLS), after paw's own. */
  readonly extraArgs?: readonly string[];
}

/** A `redis-server` child process owned by this process. */
export interface PrivateRedisServer {
  readonly url: string;
  readonly port: number;
  readonly dir: string;
  readonly pid: number;
  /** Shuts the server down (SIGTERM, then SIGKILL after 5 s) and removes a temporary data dir. */
  stop(): Promise<void>;
  /** Kills the server abruptly and keeps its data dir, for restart and crash tests. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** `redis-server` is not installed (or not on the PATH). */
export class RedisServerNotFoundError extends Error {
  override readonly name = 'RedisServerNotFoundError';
}

const MAX_PORT_ATTEMPTS = 5;

/**
 * Starts a private `redis-server` bound to 127.0.0.1, configured the way BullMQ needs it
 * (`maxmemory-policy noeviction`), persisting nothing unless asked.
 *
 * Used by the test harness, the demo and the chaos suite, so that none of them touches a Redis
 * the user cares about.
 */
export async function startPrivateRedisServer(
  options: PrivateRedisServerOptions = {},
): Promise<PrivateRedisServer> {
  const ownsDir = options.dir === undefined;
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'paw-redis-')));
  let lastError: unknown;
  const attempts = options.port === undefined ? MAX_PORT_ATTEMPTS : 1;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const port = options.port ?? (await findFreePort());
    try {
      return await launch(port, dir, ownsDir, options);
    } catch (error) {
      lastError = error;
      // A missing executable will not appear on the next port.
      if (error instanceof RedisServerNotFoundError) break;
    }
  }
  if (ownsDir) await rm(dir, { recursive: true, force: true });
  throw lastError;
}

async function launch(
  port: number,
  dir: string,
  ownsDir: boolean,
  options: PrivateRedisServerOptions,
): Promise<PrivateRedisServer> {
  const command = options.command ?? 'redis-server';
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    options.appendOnly === true ? 'yes' : 'no',
    '--appendfsync',
    'everysec',
    '--maxmemory-policy',
    'noeviction',
    '--daemonize',
    'no',
    '--loglevel',
    'notice',
    ...(options.extraArgs ?? []),
  ];
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  // If this process exits without stopping the server (a crash, process.exit), do not leave an
  // orphan redis-server behind.
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);

  await waitUntilReady(child, command, port, options.startTimeoutMs ?? 10_000).catch(
    (error: unknown) => {
      process.removeListener('exit', killOnExit);
      child.kill('SIGKILL');
      throw error;
    },
  );
  const pid = child.pid ?? -1;

  let exited = child.exitCode !== null || child.signalCode !== null;
  const exitedPromise = new Promise<void>((resolve) => {
    if (exited) resolve();
    child.once('exit', () => {
      exited = true;
      resolve();
    });
  });

  const terminate = async (signal: NodeJS.Signals): Promise<void> => {
    process.removeListener('exit', killOnExit);
    if (!exited) child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exitedPromise;
    clearTimeout(timer);
  };

  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    pid,
    async stop() {
      await terminate('SIGTERM');
      if (ownsDir) await rm(dir, { recursive: true, force: true });
    },
    async kill(signal = 'SIGKILL') {
      await terminate(signal);
    },
  };
}

function waitUntilReady(
  child: ChildProcess,
  command: string,
  port: number,
  timeoutMs: number,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      finish(
        new Error(`redis-server on port ${port} was not ready after ${timeoutMs} ms:\n${output}`),
      );
    }, timeoutMs);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (output.includes('Ready to accept connections')) finish();
    };
    const onError = (error: NodeJS.ErrnoException): void => {
      finish(
        error.code === 'ENOENT'
          ? new RedisServerNotFoundError(
              `'${command}' was not found on the PATH; install Redis (Debian: apt-get install redis-server)`,
            )
          : error,
      );
    };
    const onExit = (code: number | null): void => {
      finish(new Error(`redis-server on port ${port} exited with code ${code}:\n${output}`));
    };
    function finish(error?: Error): void {
      clearTimeout(timer);
      child.stdout?.removeListener('data', onData);
      child.stderr?.removeListener('data', onData);
      child.removeListener('error', onError);
      child.removeListener('exit', onExit);
      // Keep draining the pipes so a chatty server never blocks on a full buffer.
      child.stdout?.resume();
      child.stderr?.resume();
      if (error) reject(error);
      else resolve();
    }
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', onError);
    child.once('exit', onExit);
  });
}
