import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { Secret } from '../../../src/config/secret.js';
import { settingsSchema } from '../../../src/config/settings-schema.js';
import { silentLogger } from '../../../src/log/logger.js';
import { writeCredentialsFile } from '../../../src/platform/auth/credentials-file.js';
import {
  createPlatformClient,
  type PlatformClient,
} from '../../../src/platform/platform-client.js';
import {
  startPrivateRedisServer,
  type PrivateRedisServer,
} from '../../../src/redis/private-redis-server.js';
import type { SimulatorOptionsInput } from '../../../src/simulator/options.js';
import { startSimulator, type SimulatorHandle } from '../../../src/simulator/simulator.js';

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
  const dir = await mkdtemp(join(tmpdir(), `paw-chaos-${label}-`));
  const cleanups: (() => Promise<unknown>)[] = [() => rm(dir, { recursive: true, force: true })];
  const stop = async (): Promise<void> => {
    // Reverse order of creation; one failing cleanup does not stop the others.
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };
  try {
    const sim = await startSimulator({
      workloads: 10,
      rateLimit: { requestsPerSecond: 0 },
      ...simOptions,
    });
    cleanups.push(() => sim.stop());
    const redisServer = await startPrivateRedisServer(
      redisPassword === undefined ? {} : { extraArgs: ['--requirepass', redisPassword] },
    );
    cleanups.push(() => redisServer.stop());
    const redis = new Redis(redisServer.url, {
      maxRetriesPerRequest: null,
      ...(redisPassword === undefined ? {} : { password: redisPassword }),
    });
    cleanups.push(() => redis.quit());
    const adminFile = join(dir, 'admin.json');
    await writeCredentialsFile(adminFile, {
      clientId: sim.credentials.client_id,
      clientSecret: new Secret(sim.credentials.client_secret),
      name: sim.credentials.name,
      accessTokenUri: sim.credentials.access_token_uri,
    });
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
