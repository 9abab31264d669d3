import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { findFreePort } from '../../src/shared/free-port.js';
import { eventually } from './eventually.js';
import {
  startPrivateRedisServer,
  type PrivateRedisServer,
} from '../../src/redis/private-redis-server.js';

/** A primary, its replica and three sentinels watching them, all real processes on 127.0.0.1. */
export interface SentinelRedis {
  /** `redis+sentinel://127.0.0.1:<s1>,…/<master name>`: what paw is given. */
  readonly url: string;
  readonly masterName: string;
  readonly primary: PrivateRedisServer;
  readonly replica: PrivateRedisServer;
  /** Where the sentinels say the primary is now (`host:port`). */
  currentPrimary(): Promise<string>;
  stop(): Promise<void>;
}

const MASTER_NAME = 'paw-primary';

/**
 * Starts the set. The sentinels call the primary down after 1 s without an answer and fail
 * over to the replica (quorum 2 of 3), so a test sees a failover within a few seconds.
 */
export async function startSentinelRedis(): Promise<SentinelRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'paw-sentinel-'));
  // Without a delay the replica's first full sync starts at once (Redis waits 5 s by default,
  // and a primary killed before that takes everything with it).
  const primary = await startPrivateRedisServer({
    appendOnly: true,
    extraArgs: ['--repl-diskless-sync-delay', '0'],
  });
  const replica = await startPrivateRedisServer({
    appendOnly: true,
    extraArgs: ['--replicaof', '127.0.0.1', String(primary.port)],
  });
  const sentinels: { child: ChildProcess; port: number }[] = [];
  let spawnError: Error | undefined;
  for (let index = 0; index < 3; index++) {
    const port = await findFreePort();
    const conf = join(dir, `sentinel-${index}.conf`);
    await writeFile(
      conf,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${primary.port} 2`,
        `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
        `sentinel failover-timeout ${MASTER_NAME} 10000`,
        `sentinel parallel-syncs ${MASTER_NAME} 1`,
        '',
      ].join('\n'),
    );
    const child = spawn('redis-sentinel', [conf], { stdio: 'ignore' });
    child.once('error', (error: NodeJS.ErrnoException) => {
      spawnError ??=
        error.code === 'ENOENT'
          ? new Error('redis-sentinel is not on the PATH (Debian: apt-get install redis-sentinel)')
          : error;
    });
    sentinels.push({ child, port });
  }
  const stop = async (): Promise<void> => {
    for (const { child } of sentinels) child.kill('SIGKILL');
    await Promise.allSettled([primary.stop(), replica.stop()]);
    await rm(dir, { recursive: true, force: true });
  };
  const ask = async <T>(question: (sentinel: Redis) => Promise<T>): Promise<T> => {
    const sentinel = new Redis({
      port: sentinels[0]?.port ?? 0,
      host: '127.0.0.1',
      lazyConnect: true,
      retryStrategy: () => null,
    });
    try {
      await sentinel.connect();
      return await question(sentinel);
    } finally {
      sentinel.disconnect();
    }
  };
  const currentPrimary = async (): Promise<string> =>
    (
      (await ask((sentinel) =>
        sentinel.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME),
      )) as string[]
    ).join(':');
  try {
    // Ready: the replica is in sync with the primary, and the sentinels know it.
    const replicaLink = new Redis(replica.url, { lazyConnect: true });
    try {
      await eventually(
        'the replica to sync, and the sentinels to see it',
        async () => {
          if (spawnError !== undefined) throw spawnError;
          const linked = /master_link_status:up/.test(await replicaLink.info('replication'));
          return (
            linked &&
            (await ask(async (sentinel) => {
              const replicas = (await sentinel.call(
                'SENTINEL',
                'REPLICAS',
                MASTER_NAME,
              )) as unknown[];
              return replicas.length > 0;
            }).catch(() => false))
          );
        },
        { timeoutMs: 20_000, intervalMs: 200 },
      );
    } finally {
      replicaLink.disconnect();
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url: `redis+sentinel://${sentinels.map(({ port }) => `127.0.0.1:${port}`).join(',')}/${MASTER_NAME}`,
    masterName: MASTER_NAME,
    primary,
    replica,
    currentPrimary,
    stop,
  };
}

/** A real sentinel that watches no primary, so it knows no master name. */
export interface LoneSentinel {
  /** `host:port`. */
  readonly address: string;
  stop(): Promise<void>;
}

/**
 * Starts one sentinel that monitors nothing (`redis-server --sentinel`, so it needs only
 * redis-server): asked for any master, it answers that it knows none.
 */
export async function startLoneSentinel(): Promise<LoneSentinel> {
  const dir = await mkdtemp(join(tmpdir(), 'paw-lone-sentinel-'));
  const port = await findFreePort();
  const conf = join(dir, 'sentinel.conf');
  await writeFile(conf, [`port ${port}`, 'bind 127.0.0.1', `dir ${dir}`, ''].join('\n'));
  const child = spawn('redis-server', [conf, '--sentinel'], { stdio: 'ignore' });
  const stop = async (): Promise<void> => {
    child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await eventually(
      `the sentinel on port ${port} to start`,
      async () => {
        if (child.exitCode !== null) throw new Error(`the sentinel on port ${port} did not start`);
        const probe = new Redis({
          port,
          host: '127.0.0.1',
          lazyConnect: true,
          retryStrategy: () => null,
        });
        probe.on('error', () => undefined);
        const answered = await probe
          .connect()
          .then(() => probe.ping())
          .then(() => true)
          .catch(() => false);
        probe.disconnect();
        return answered;
      },
      { timeoutMs: 10_000, intervalMs: 100 },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { address: `127.0.0.1:${port}`, stop };
}
