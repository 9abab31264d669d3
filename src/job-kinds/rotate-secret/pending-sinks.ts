import type { Redis } from 'ioredis';
import type { RotationKeys } from './rotation-keys.js';

/** A sink whose rotation may be unfinished, and the account it belongs to. */
export interface PendingSink {
  readonly sink: string;
  readonly clientId: string;
}

/**
 * The sinks whose rotation may be unfinished (`RotationKeys.journals`, a hash: sink path →
 * client id), so that a worker starting up knows which journals to look for. A sink is added
 * before its journal is written and removed after the journal is deleted.
 */
export class PendingSinks {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RotationKeys,
  ) {}

  async add(sink: string, clientId: string): Promise<void> {
    await this.redis.hset(this.keys.journals(), sink, clientId);
  }

  async remove(sink: string): Promise<void> {
    await this.redis.hdel(this.keys.journals(), sink);
  }

  async list(): Promise<PendingSink[]> {
    const entries = await this.redis.hgetall(this.keys.journals());
    return Object.entries(entries).map(([sink, clientId]) => ({ sink, clientId }));
  }
}
