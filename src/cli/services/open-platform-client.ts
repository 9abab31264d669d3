import type { Redis } from 'ioredis';
import { createPlatformClient, type PlatformClient } from '../../platform/platform-client.js';
import type { PlatformObserver } from '../../platform/platform-observer.js';
import { SharedRequestGate } from '../../platform/rate-limit/shared-request-gate.js';
import type { ProcessParts } from '../../redis/redis-connection.js';

/**
 * The platform client of a long-running process, behind the request gate that every process
 * shares through Redis (`platform.requestsPerSecond` holds for all of them together): the
 * workers' (worker-service.ts), and a scheduler's for protection coverage (start-paw-services.ts).
 * The shutdown closes the client first (it revokes its session), then the gate.
 */
export async function openSharedPlatformClient(
  options: ProcessParts & {
    /** A connection that waits out a Redis outage, for the gate's key. */
    readonly redis: Redis;
    /** Told of every platform call and token refresh (metrics, the record of 429s). */
    readonly observer?: PlatformObserver | undefined;
  },
): Promise<PlatformClient> {
  const { settings, logger, shutdown } = options;
  const gate = new SharedRequestGate({
    redis: options.redis,
    prefix: settings.redis.prefix,
    requestsPerSecond: settings.platform.requestsPerSecond,
    logger,
  });
  shutdown.add('request gate', () => gate.close());
  const platform = await createPlatformClient({
    settings,
    logger,
    requestGate: gate,
    ...(options.observer === undefined ? {} : { observer: options.observer }),
  });
  shutdown.add('platform client', () => platform.close());
  return platform;
}
