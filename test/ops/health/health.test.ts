import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../../src/config/load-settings.js';
import { PawMetrics } from '../../../src/ops/metrics/paw-metrics.js';
import { startOpsServer, type OpsServer } from '../../../src/ops/ops-server.js';
import { createPlatformClient } from '../../../src/platform/platform-client.js';
import { startPrivateRedisServer } from '../../../src/redis/private-redis-server.js';
import type { SimulatorHandle } from '../../../src/simulator/simulator.js';
import { captureLogs } from '../../testkit/log-capture.js';
import { testRedisUrl, uniquePrefix } from '../../testkit/redis-connection.js';
import { startSimulatorKit, type SimulatorKit } from '../../testkit/simulator-kit.js';

interface Readiness {
  status: string;
  ready: boolean;
  checks: Record<string, { status: string; error?: string; reason?: string }>;
}

async function get(url: string): Promise<{ status: number; body: unknown }> {
  const response = await request(url);
  return { status: response.statusCode, body: await response.body.json() };
}

describe('/healthz and /readyz', () => {
  const logs = captureLogs('debug');
  let kit: SimulatorKit;
  let sim: SimulatorHandle;
  let dir: string;

  beforeAll(async () => {
    kit = await startSimulatorKit({ workloads: 5 }, 'health');
    ({ sim, dir } = kit);
  });
  afterAll(() => kit.close());

  /** An ops server with a platform client whose credentials file holds `secret`. */
  async function serve(
    redisUrl: string,
    secret: string,
    role: { role: string; readinessChecksPlatform?: boolean } = { role: 'worker' },
  ): Promise<{ server: OpsServer; close: () => Promise<void> }> {
    const credentialsFile = join(dir, `sa-${Math.random().toString(36).slice(2)}.json`);
    await writeFile(
      credentialsFile,
      JSON.stringify({ ...sim.credentials, client_secret: secret }),
      { mode: 0o600 },
    );
    const { settings } = await loadSettings({
      cwd: dir,
      env: {
        PAW_REDIS_URL: redisUrl,
        PAW_REDIS_PREFIX: uniquePrefix('health'),
        PAW_CREDENTIALS_FILE: credentialsFile,
      },
    });
    const platform = await createPlatformClient({ settings, logger: logs.logger });
    const server = await startOpsServer({
      settings,
      logger: logs.logger,
      ...role,
      version: '9.9.9',
      metrics: new PawMetrics({ processMetrics: false }),
      platform,
      port: 0,
    });
    if (server === undefined) throw new Error('no ops server');
    return {
      server,
      close: async () => {
        await server.close();
        await platform.close();
      },
    };
  }

  it('are 200 when Redis answers and the platform hands out a token', async () => {
    const { server, close } = await serve(testRedisUrl(), sim.credentials.client_secret);
    try {
      const health = await get(`${server.url}/healthz`);
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({ status: 'ok', role: 'worker', version: '9.9.9' });
      const ready = await get(`${server.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(ready.body).toMatchObject({
        status: 'ready',
        checks: { redis: { status: 'ok' }, platform: { status: 'ok' } },
      });
    } finally {
      await close();
    }
  });

  it('readiness fails naming the platform when it refuses the credentials; liveness stays 200', async () => {
    const wrong = 'not-the-secret-0123456789';
    const { server, close } = await serve(testRedisUrl(), wrong);
    try {
      const ready = await get(`${server.url}/readyz`);
      expect(ready.status).toBe(503);
      const body = ready.body as Readiness;
      expect(body.status).toBe('not ready');
      expect(body.checks['redis']?.status).toBe('ok');
      expect(body.checks['platform']?.status).toBe('failed');
      expect(body.checks['platform']?.error).toMatch(
        /AuthenticationError: .*refused the client secret/,
      );
      expect(JSON.stringify(body)).not.toContain(wrong);
      expect((await get(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await close();
    }
    expect(logs.text()).not.toContain(wrong);
  });

  it("a scheduler's readiness does not wait for the platform its coverage calls", async () => {
    const wrong = 'not-the-secret-0123456789';
    const { server, close } = await serve(testRedisUrl(), wrong, {
      role: 'scheduler',
      readinessChecksPlatform: false,
    });
    try {
      const ready = await get(`${server.url}/readyz`);
      expect(ready.status).toBe(200);
      expect((ready.body as Readiness).checks['platform']?.status).toBe('skipped');
    } finally {
      await close();
    }
  });

  it('readiness fails naming Redis when Redis is down, and recovers when it is back', async () => {
    const redis = await startPrivateRedisServer();
    const { server, close } = await serve(redis.url, sim.credentials.client_secret);
    try {
      expect((await get(`${server.url}/readyz`)).status).toBe(200);
      await redis.kill('SIGKILL');
      const down = await get(`${server.url}/readyz`);
      expect(down.status).toBe(503);
      const body = down.body as Readiness;
      expect(body.checks['redis']?.status).toBe('failed');
      expect(body.checks['redis']?.error).toBeTruthy();
      expect(body.checks['platform']?.status).toBe('ok');
      expect((await get(`${server.url}/healthz`)).status).toBe(200);

      const again = await startPrivateRedisServer({ port: redis.port, dir: redis.dir });
      try {
        await expect
          .poll(async () => (await get(`${server.url}/readyz`)).status, { timeout: 20_000 })
          .toBe(200);
      } finally {
        await close();
        await again.stop();
      }
    } finally {
      await close();
      await redis.stop();
    }
  });

  it('an ops server whose port is taken fails with the variable to change', async () => {
    const first = await serve(testRedisUrl(), sim.credentials.client_secret);
    try {
      const { settings } = await loadSettings({
        cwd: dir,
        env: { PAW_REDIS_URL: testRedisUrl(), PAW_HTTP_PORT: String(first.server.port) },
      });
      await expect(
        startOpsServer({
          settings,
          logger: logs.logger,
          role: 'worker',
          version: 'x',
          metrics: new PawMetrics({ processMetrics: false }),
        }),
      ).rejects.toThrow(/port \d+ on 127\.0\.0\.1 is in use.*PAW_HTTP_PORT/);
    } finally {
      await first.close();
    }
  });

  it('is off when http.port is 0', async () => {
    const { settings } = await loadSettings({
      cwd: dir,
      env: { PAW_REDIS_URL: testRedisUrl(), PAW_HTTP_PORT: '0' },
    });
    const server = await startOpsServer({
      settings,
      logger: logs.logger,
      role: 'worker',
      version: 'x',
      metrics: new PawMetrics({ processMetrics: false }),
    });
    expect(server).toBeUndefined();
  });
});
