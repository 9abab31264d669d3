import type { Redis } from 'ioredis';
import { openSubsystemConnection, type ProcessParts } from '../../redis/redis-connection.js';
import { NotificationProducer, createNotifyQueue } from './notification-queue.js';

/**
 * A producer of run-end notifications with a Redis connection of its own, registered with the
 * shutdown: for a worker process (which does not send them), and for a process that does, whose
 * outcome store reports run ends to it. Open it before the workers, so that it closes after them
 * and runs ending while they drain are still reported.
 */
export async function openNotificationProducer(
  options: ProcessParts,
): Promise<NotificationProducer> {
  const { redis, logger } = await openSubsystemConnection(
    options,
    'notifications',
    'service',
    'notification producer',
  );
  return notificationProducerOn(redis, { ...options, logger });
}

/**
 * A producer of run-end notifications on `redis`: the `notify` queue and the producer, both
 * released by the shutdown (the producer's pending adds are flushed first).
 */
export function notificationProducerOn(redis: Redis, options: ProcessParts): NotificationProducer {
  const { shutdown } = options;
  const queue = createNotifyQueue(redis, options.settings);
  // The connection logs its errors; without a listener BullMQ would print each one to stderr.
  queue.on('error', () => undefined);
  shutdown.add('notify queue', () => queue.close());
  const producer = new NotificationProducer(queue, options.logger);
  shutdown.add('notification producer', () => producer.flush());
  return producer;
}
