import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { PawFleet } from '../../../test/testkit/paw-fleet.js';

/**
 * A fleet of real paw processes for a chaos scenario that kills them: the scenario's own Redis
 * and folder, a `chaos-<label>-…` prefix, info logs unless `env` says otherwise, and a minute and
 * a half to get ready and for a run to end (the scenarios run on a busy machine).
 */
export function chaosFleet(
  redis: Redis,
  options: {
    redisUrl: string;
    dir: string;
    credentialsFile: string;
    label: string;
    env?: Record<string, string>;
  },
): Promise<PawFleet> {
  return PawFleet.create(redis, {
    redisUrl: options.redisUrl,
    prefix: `chaos-${options.label}-${randomUUID().slice(0, 8)}`,
    credentialsFile: options.credentialsFile,
    parentDir: options.dir,
    logLevel: 'info',
    readyTimeoutMs: 90_000,
    runTimeoutMs: 90_000,
    ...(options.env === undefined ? {} : { env: options.env }),
  });
}
