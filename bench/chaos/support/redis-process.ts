import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startPrivateRedisServer,
  type PrivateRedisServer,
} from '../../../src/redis/private-redis-server.js';

/**
 * A private `redis-server` that a scenario can take away and bring back on the same address with
 * the same data directory: paw's processes keep their `redis://127.0.0.1:<port>` and must find
 * their way back. Built on src/redis/private-redis-server.ts (which owns the process itself).
 */
export class RedisProcess {
  private server: PrivateRedisServer | undefined;

  private constructor(
    readonly port: number,
    readonly dir: string,
    private readonly appendOnly: boolean,
    server: PrivateRedisServer,
  ) {
    this.server = server;
  }

  /** Starts one on a free port, with its own data directory (removed by {@link close}). */
  static async start(options: { appendOnly: boolean }): Promise<RedisProcess> {
    const dir = await mkdtemp(join(tmpdir(), 'paw-chaos-redis-'));
    try {
      const server = await startPrivateRedisServer({ dir, appendOnly: options.appendOnly });
      return new RedisProcess(server.port, dir, options.appendOnly, server);
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** The server's process id while it runs (to SIGSTOP it, say). */
  get pid(): number | undefined {
    return this.server?.pid;
  }

  get running(): boolean {
    return this.server !== undefined;
  }

  /**
   * Takes the server away: `SIGTERM` is a clean shutdown (Redis writes and syncs its append-only
   * file first), `SIGKILL` a crash (with `appendfsync everysec`, up to a second of writes lost).
   */
  async down(signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    const server = this.server;
    this.server = undefined;
    await server?.kill(signal);
  }

  /** Brings it back on the same port and data directory (the AOF, if on, is loaded first). */
  async up(): Promise<void> {
    if (this.server !== undefined) return;
    this.server = await startPrivateRedisServer({
      port: this.port,
      dir: this.dir,
      appendOnly: this.appendOnly,
      startTimeoutMs: 60_000,
    });
  }

  /** Stops it (if running) and removes its data directory. */
  async close(): Promise<void> {
    await this.down('SIGTERM');
    await rm(this.dir, { recursive: true, force: true });
  }
}
