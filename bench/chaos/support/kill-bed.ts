import { Redis } from 'ioredis';
import { settingsSchema } from '../../../src/config/settings-schema.js';
import { silentLogger } from '../../../src/shared/logger.js';
import {
  createPlatformClient,
  type PlatformClient,
} from '../../../src/platform/platform-client.js';
import {
  startPrivateRedisServer,
  type PrivateRedisServer,
} from '../../../src/redis/private-redis-server.js';
import type { SimulatorOptionsInput } from '../../../src/simulator/options.js';
import type { SimulatorHandle } from '../../../src/simulator/simulator.js';
import { startSimulatorKit } from '../../../test/testkit/simulator-kit.js';

/**
 * What chaos scenarios 5 to 7 kill paw processes against: one simulator (in this process, so
 * the scenario can read its state), one private `redis-server`, a temporary folder, the
 * simulator's administrator credentials in a file, and paw's own platform client on them for
 * the scenario's checks and set-up (SLA Domains, service accounts).
 */
export interface KillBed {
  readonly sim: SimulatorHandle;
  readonly redisServer: PrivateRedisServer;
  readonly redisUrl: string;
  /** A connection for the scenario's own reads (outcomes, the Redis dump). */
  readonly redis: Redis;
  readonly dir: string;
  readonly adminFile: string;
  readonly admin: PlatformClient;
  stop(): Promise<void>;
}

/** Starts a bed; the caller stops it in a `finally`. Rate limiting is off unless asked for. */
export async function startKillBed(
  label: string,
  simOptions: SimulatorOptionsInput = {},
  /** A password the Redis server requires (`requirepass`); the bed's own connection uses it. */
  redisPassword?: string,
): Promise<KillBed> {
  const kit = await startSimulatorKit({ workloads: 10, ...simOptions }, `chaos-${label}`);
  const { sim, dir } = kit;
  const cleanups: (() => Promise<unknown>)[] = [kit.close];
  const stop = async (): Promise<void> => {
    // Reverse order of creation; one failing cleanup does not stop the others.
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };
  try {
    const redisServer = await startPrivateRedisServer(
      redisPassword === undefined ? {} : { extraArgs: ['--requirepass', redisPassword] },
    );
    cleanups.push(() => redisServer.stop());
    const redis = new Redis(redisServer.url, {
      maxRetriesPerRequest: null,
      ...(redisPassword === undefined ? {} : { password: redisPassword }),
    });
    cleanups.push(() => redis.quit());
    const adminFile = kit.credentialsFile;
    const admin = await createPlatformClient({
      settings: settingsSchema.parse({ platform: { credentialsFile: adminFile } }),
      logger: silentLogger(),
    });
    cleanups.push(() => admin.close());
    return { sim, redisServer, redisUrl: redisServer.url, redis, dir, adminFile, admin, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
