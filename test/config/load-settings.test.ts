import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/config/load-settings.js';
import { UsageError } from '../../src/shared/usage-error.js';

async function configDirWith(yaml: string | undefined): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'paw-config-'));
  await mkdir(join(root, 'config'));
  if (yaml !== undefined) await writeFile(join(root, 'config', 'paw.yaml'), yaml);
  return root;
}

describe('loadSettings', () => {
  it('gives the documented defaults when there is no file and no variable', async () => {
    const cwd = await configDirWith(undefined);
    const { settings, file } = await loadSettings({ env: {}, cwd });
    expect(file).toBeUndefined();
    expect(settings.redis).toEqual({
      url: 'redis://127.0.0.1:6379',
      prefix: 'paw',
      tls: {},
      sentinel: {},
    });
    expect(settings.platform.requestsPerSecond).toBe(40);
    expect(settings.http.port).toBe(8090);
    expect(settings.outcomes.retentionDays).toBe(90);
    expect(settings.jobs.dir).toBe(join(cwd, 'jobs'));
    expect(Object.isFrozen(settings.redis)).toBe(true);
  });

  it('lets the environment beat the file and flags beat the environment', async () => {
    const cwd = await configDirWith('redis:\n  url: redis://file:1\nhttp:\n  port: 9000\n');
    const { settings } = await loadSettings({
      env: { PAW_REDIS_URL: 'redis://env:2', PAW_HTTP_PORT: '9100' },
      cwd,
      overrides: [{ path: ['http', 'port'], value: 9200, source: 'flag --port' }],
    });
    expect(settings.redis.url).toBe('redis://env:2');
    expect(settings.http.port).toBe(9200);
  });

  it('resolves file paths against the config folder and variable paths against the cwd', async () => {
    const cwd = await configDirWith('jobs:\n  dir: ../my-jobs\n');
    const fromFile = await loadSettings({ env: {}, cwd });
    expect(fromFile.settings.jobs.dir).toBe(join(cwd, 'my-jobs'));
    const fromEnv = await loadSettings({ env: { PAW_CREDENTIALS_FILE: 'sa.json' }, cwd });
    expect(fromEnv.settings.platform.credentialsFile).toBe(join(cwd, 'sa.json'));
  });

  it('names the file, line, setting and valid values for a bad value', async () => {
    const cwd = await configDirWith('log:\n  level: loud\n');
    const error = await loadSettings({ env: {}, cwd }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    const message = (error as Error).message;
    expect(message).toContain(join(cwd, 'config', 'paw.yaml') + ':2:10');
    expect(message).toContain('log.level');
    expect(message).toContain('"debug"');
  });

  it('rejects an unknown (misspelt) setting instead of ignoring it', async () => {
    const cwd = await configDirWith('redis:\n  ulr: redis://x:1\n');
    await expect(loadSettings({ env: {}, cwd })).rejects.toThrow(/redis.*ulr|ulr/);
  });

  it('names the environment variable when its value is invalid', async () => {
    const cwd = await configDirWith(undefined);
    await expect(loadSettings({ env: { PAW_HTTP_PORT: 'eighty' }, cwd })).rejects.toThrow(
      /environment variable PAW_HTTP_PORT: http\.port/,
    );
  });

  it('refuses a trusted proxy that is not an address or a range, naming the setting and the value', async () => {
    const cwd = await configDirWith(undefined);
    for (const [value, bad] of [
      ['10.0.0.0/33', '10.0.0.0/33'],
      ['999.1.1.1', '999.1.1.1'],
      ['10.0.0.0/8,fd00::/129', 'fd00::/129'],
      ['10.0.0.0/', '10.0.0.0/'],
    ]) {
      const error = await loadSettings({ env: { PAW_OPS_TRUSTED_PROXIES: value }, cwd }).catch(
        (e: unknown) => e,
      );
      expect(error, value).toBeInstanceOf(UsageError);
      expect((error as Error).message).toContain(
        `environment variable PAW_OPS_TRUSTED_PROXIES: http.auth.trustedProxies`,
      );
      expect((error as Error).message).toContain(`"${bad}" is not an IP address or a CIDR range`);
    }
    const { settings } = await loadSettings({
      env: { PAW_OPS_TRUSTED_PROXIES: '10.0.0.0/8,192.168.1.7,fd00::/8,::1' },
      cwd,
    });
    expect(settings.http.auth.trustedProxies).toHaveLength(4);
  });

  it('reports broken YAML with its line', async () => {
    const cwd = await configDirWith('redis:\n  url: [unclosed\n');
    await expect(loadSettings({ env: {}, cwd })).rejects.toThrow(/paw\.yaml:\d+:\d+: invalid YAML/);
  });

  it('refuses a client secret written in the file', async () => {
    const cwd = await configDirWith('platform:\n  clientSecret: hunter2\n');
    const error = (await loadSettings({ env: {}, cwd }).catch((e: unknown) => e)) as Error;
    expect(error.message).toContain('PAW_CLIENT_SECRET');
    expect(error.message).not.toContain('hunter2');
  });

  it('keeps a secret from the environment out of every printed form', async () => {
    const cwd = await configDirWith(undefined);
    const { settings } = await loadSettings({ env: { PAW_CLIENT_SECRET: 's3cr3t-value' }, cwd });
    expect(settings.platform.clientSecret?.reveal()).toBe('s3cr3t-value');
    expect(JSON.stringify(settings)).not.toContain('s3cr3t-value');
    expect(inspect(settings, { depth: 10 })).not.toContain('s3cr3t-value');
    expect(`${String(settings.platform.clientSecret)}`).not.toContain('s3cr3t-value');
  });

  it('fails clearly when PAW_CONFIG_DIR names a folder without paw.yaml', async () => {
    const cwd = await configDirWith(undefined);
    await expect(loadSettings({ env: { PAW_CONFIG_DIR: 'nowhere' }, cwd })).rejects.toThrow(
      /PAW_CONFIG_DIR=nowhere: .*paw\.yaml does not exist/,
    );
  });
  it('gives the platform client its documented defaults', async () => {
    const cwd = await configDirWith(undefined);
    const { platform } = (await loadSettings({ env: {}, cwd })).settings;
    expect(platform.timeouts).toEqual({
      connectMs: 10_000,
      headersMs: 30_000,
      bodyMs: 30_000,
      keepAliveMs: 10_000,
    });
    expect(platform.retry).toEqual({ attempts: 3, baseDelayMs: 250, maxDelayMs: 4_000 });
    expect(platform.token).toEqual({ refreshMarginSeconds: 120, defaultLifetimeSeconds: 3600 });
    expect(platform).toMatchObject({
      allowInsecureHttp: false,
      pageSize: 1000,
      restBasePath: '/api/rest',
      routes: {},
    });
  });

  it('reads platform settings from variables, booleans included, and reports bad ones', async () => {
    const cwd = await configDirWith(undefined);
    const { platform } = (
      await loadSettings({
        env: {
          PAW_PLATFORM_ALLOW_INSECURE_HTTP: 'false',
          PAW_PLATFORM_HEADERS_TIMEOUT_MS: '1500',
          PAW_PAT_SECRET: 'pat-secret-value',
        },
        cwd,
      })
    ).settings;
    expect(platform.allowInsecureHttp).toBe(false);
    expect(platform.timeouts.headersMs).toBe(1500);
    expect(JSON.stringify(platform)).not.toContain('pat-secret-value');
    await expect(loadSettings({ env: { PAW_PLATFORM_RETRY_ATTEMPTS: '9' }, cwd })).rejects.toThrow(
      /environment variable PAW_PLATFORM_RETRY_ATTEMPTS: platform\.retry\.attempts/,
    );
    await expect(
      loadSettings({ env: { PAW_PLATFORM_ALLOW_INSECURE_HTTP: 'maybe' }, cwd }),
    ).rejects.toThrow(/PAW_PLATFORM_ALLOW_INSECURE_HTTP/);
  });

  it('points at the line of a bad platform setting in the file', async () => {
    const cwd = await configDirWith(
      'platform:\n  retry:\n    baseDelayMs: 500\n    maxDelayMs: 100\n',
    );
    await expect(loadSettings({ env: {}, cwd })).rejects.toThrow(
      /paw\.yaml:4:\d+: platform\.retry\.maxDelayMs: maxDelayMs must be at least baseDelayMs/,
    );
  });

  it('refuses OAuth and personal-access-token secrets written in the file', async () => {
    const cwd = await configDirWith('platform:\n  oauth:\n    clientSecret: app-secret\n');
    const error = (await loadSettings({ env: {}, cwd }).catch((e: unknown) => e)) as Error;
    expect(error.message).toContain('PAW_OAUTH_CLIENT_SECRET');
    expect(error.message).toMatch(/paw\.yaml:3:\d+/);
    expect(error.message).not.toContain('app-secret');
  });
});
