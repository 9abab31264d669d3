import type { Settings } from '../../config/settings-schema.js';
import type { Shutdown } from '../../lifecycle/shutdown.js';
import type { Logger } from '../../log/logger.js';
import { connectRedis, createRedisConnection } from '../../queue/redis-connection.js';
import { NotificationProducer, createNotifyQueue } from './notification-queue.js';

/**
 * A producer of run-end notifications for a process that does not send them (a worker): its own
 * Redis connection and the `notify` queue, registered with the shutdown. Open it before the
 * workers, so that it closes after them and runs ending while they drain are still reported.
 */
export async function openNotificationProducer(options: {
  readonly settings: Settings;
  readonly logger: Logger;
  readonly shutdown: Shutdown;
}): Promise<NotificationProducer> {
  const { settings, shutdown } = options;
  const logger = options.logger.child({ subsystem: 'notifications' });
  const redis = createRedisConnection(settings.redis, 'service', logger);
  shutdown.add('redis (notification producer)', async () => {
    await redis.quit().catch(() => redis.disconnect());
  });
  await connectRedis(redis, settings.redis.url);
  const queue = createNotifyQueue(redis, settings);
  // The connection logs its errors; without a listener BullMQ would print each one to stderr.
  queue.on('error', () => undefined);
  shutdown.add('notify queue (producer)', () => queue.close());
  const producer = new NotificationProducer(queue, logger);
  shutdown.add('notification producer', () => producer.flush());
  return producer;
}
