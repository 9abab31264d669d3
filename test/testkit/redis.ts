import {
  startPrivateRedisServer,
  RedisServerNotFoundError,
} from '../../src/redis/private-redis-server.js';

/** Where a test run's Redis came from. */
type TestRedisSource = 'PAW_REDIS_URL' | 'redis-server' | 'testcontainers';

export interface TestRedis {
  readonly url: string;
  readonly source: TestRedisSource;
  stop(): Promise<void>;
}

export interface AcquireTestRedisOptions {
  /** The environment to read PAW_REDIS_URL from. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The redis-server executable to try. */
  readonly redisServerCommand?: string;
  /** Whether a container runtime can be reached; asks testcontainers by default. */
  readonly hasContainerRuntime?: () => Promise<boolean>;
}

/**
 * Gives a test run a real Redis, trying in order: `PAW_REDIS_URL`; a private `redis-server` on a
 * free 127.0.0.1 port; a testcontainers Redis where a container runtime exists. When none works
 * the error names all three ways, so whoever reads it knows how to fix their machine.
 */
export async function acquireTestRedis(options: AcquireTestRedisOptions = {}): Promise<TestRedis> {
  const env = options.env ?? process.env;
  const fromEnv = env['PAW_REDIS_URL'];
  if (fromEnv !== undefined && fromEnv !== '') {
    return { url: fromEnv, source: 'PAW_REDIS_URL', stop: async () => {} };
  }

  let serverFailure: string;
  try {
    const server = await startPrivateRedisServer(
      options.redisServerCommand === undefined ? {} : { command: options.redisServerCommand },
    );
    return { url: server.url, source: 'redis-server', stop: () => server.stop() };
  } catch (error) {
    if (!(error instanceof RedisServerNotFoundError)) throw error;
    serverFailure = error.message;
  }

  const hasRuntime = options.hasContainerRuntime ?? containerRuntimeAvailable;
  if (await hasRuntime()) {
    const { RedisContainer } = await import('@testcontainers/redis');
    const container = await new RedisContainer('redis:7-alpine').start();
    return {
      url: container.getConnectionUrl(),
      source: 'testcontainers',
      stop: async () => {
        await container.stop();
      },
    };
  }

  throw new Error(
    [
      'no Redis for the tests. Give them one of:',
      '  1. PAW_REDIS_URL=redis://host:port (a Redis you do not mind the tests writing to);',
      `  2. redis-server on the PATH (Debian: apt-get install redis-server): ${serverFailure}`,
      '  3. a container runtime that testcontainers can reach (Docker or Podman).',
    ].join('\n'),
  );
}

async function containerRuntimeAvailable(): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}
