import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * A Lua script run with EVALSHA, falling back to EVAL the first time a server has not seen it
 * (NOSCRIPT). Scripts are how paw makes a read-check-write on several keys atomic.
 *
 * Keys a script builds from a prefix (rather than receiving in KEYS) must share the prefix's
 * hash tag on Redis Cluster; paw's prefixes do when written as `{paw}`.
 */
export class RedisScript {
  private readonly sha: string;

  /**
   * @param numberOfKeys when given, a call with another number of keys is refused before it
   *   reaches Redis (a script file's name says how many it takes: see luaScript).
   */
  constructor(
    readonly name: string,
    private readonly lua: string,
    private readonly numberOfKeys?: number,
  ) {
    this.sha = createHash('sha1').update(lua).digest('hex');
  }

  async run(
    redis: Redis,
    keys: readonly (string | Buffer)[],
    args: readonly (string | number | Buffer)[],
  ): Promise<unknown> {
    return this.call(keys, (command, script) =>
      command === 'EVALSHA'
        ? redis.evalsha(script, keys.length, ...keys, ...args)
        : redis.eval(script, keys.length, ...keys, ...args),
    );
  }

  /**
   * As {@link run}, with the reply's strings as Buffers: for a script that answers binary (a
   * packed run's chunks), which a string reply would corrupt.
   */
  async runForBuffers(
    redis: Redis,
    keys: readonly (string | Buffer)[],
    args: readonly (string | number | Buffer)[],
  ): Promise<unknown> {
    return this.call(keys, (command, script) =>
      redis.callBuffer(command, script, keys.length, ...keys, ...args),
    );
  }

  /** EVALSHA, then EVAL the first time a server has not seen the script (NOSCRIPT). */
  private async call(
    keys: readonly (string | Buffer)[],
    send: (command: 'EVALSHA' | 'EVAL', script: string) => Promise<unknown>,
  ): Promise<unknown> {
    this.checkKeys(keys);
    try {
      return await send('EVALSHA', this.sha);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return send('EVAL', this.lua);
    }
  }

  private checkKeys(keys: readonly (string | Buffer)[]): void {
    if (this.numberOfKeys !== undefined && keys.length !== this.numberOfKeys) {
      throw new TypeError(
        `${this.name} takes ${this.numberOfKeys} keys, not ${keys.length}: its call and its script disagree`,
      );
    }
  }
}
