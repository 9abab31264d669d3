import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import {
  startPrivateRedisServer,
  type PrivateRedisServer,
} from '../../src/redis/private-redis-server.js';
import { acquireTestRedis } from './redis.js';
import { connectTestRedis, uniquePrefix } from './redis-connection.js';

describe('the test run Redis', () => {
  it('is a real Redis that stores and returns data', async () => {
    const redis = connectTestRedis();
    try {
      const key = `${uniquePrefix('harness')}:k`;
      await redis.set(key, 'v', 'EX', 60);
      expect(await redis.get(key)).toBe('v');
      expect(['PAW_REDIS_URL', 'redis-server', 'testcontainers']).toContain(inject('redisSource'));
    } finally {
      redis.disconnect();
    }
  });
});

describe('startPrivateRedisServer', () => {
  const started: PrivateRedisServer[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((server) => server.stop()));
  });

  it('runs on 127.0.0.1 with noeviction, and stop() removes the server and its data dir', async () => {
    const server = await startPrivateRedisServer();
    const redis = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    await redis.connect();
    expect(await redis.config('GET', 'maxmemory-policy')).toEqual([
      'maxmemory-policy',
      'noeviction',
    ]);
    expect(await redis.config('GET', 'bind')).toEqual(['bind', '127.0.0.1']);
    redis.disconnect();

    await server.stop();
    expect(existsSync(server.dir)).toBe(false);
    await expect(connectOnce(server.port)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('keeps data across a SIGKILL and restart when append-only is on', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'paw-aof-test-'));
    try {
      const first = await startPrivateRedisServer({ dir, appendOnly: true });
      const writer = new Redis(first.url);
      await writer.set('survives', 'yes');
      // appendfsync everysec: wait for the fsync that follows the write.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      writer.disconnect();
      await first.kill('SIGKILL');

      const second = await startPrivateRedisServer({ dir, appendOnly: true, port: first.port });
      started.push(second);
      const reader = new Redis(second.url);
      expect(await reader.get('survives')).toBe('yes');
      reader.disconnect();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('acquireTestRedis', () => {
  it('uses PAW_REDIS_URL when it is set', async () => {
    const redis = await acquireTestRedis({ env: { PAW_REDIS_URL: 'redis://example.invalid:1' } });
    expect(redis).toMatchObject({ url: 'redis://example.invalid:1', source: 'PAW_REDIS_URL' });
  });

  it('falls back to a private redis-server when PAW_REDIS_URL is not set', async () => {
    const redis = await acquireTestRedis({ env: {} });
    try {
      expect(redis.source).toBe('redis-server');
      const client = new Redis(redis.url);
      expect(await client.ping()).toBe('PONG');
      client.disconnect();
    } finally {
      await redis.stop();
    }
  });

  it('names all three ways to get a Redis when none is available', async () => {
    const attempt = acquireTestRedis({
      env: {},
      redisServerCommand: 'paw-no-such-redis-server',
      hasContainerRuntime: async () => false,
    });
    await expect(attempt).rejects.toThrow(/PAW_REDIS_URL/);
    await expect(attempt).rejects.toThrow(/apt-get install redis-server/);
    await expect(attempt).rejects.toThrow(/container runtime/);
  });
});

function connectOnce(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', reject);
  });
}
