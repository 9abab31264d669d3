import type { Queue } from 'bullmq';
import { withoutCommand } from '../redis/redis-error-log.js';

/**
 * A queue whose connection errors are left to the connection's own log (createRedisConnection
 * reports each cause once per interval). Without a listener, BullMQ would print every error to
 * the console with its command's arguments, a Redis password among them.
 */
export function quietQueue<Q extends Queue>(queue: Q): Q {
  queue.on('error', (error: unknown) => {
    withoutCommand(error);
  });
  return queue;
}
