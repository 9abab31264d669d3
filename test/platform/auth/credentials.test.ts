import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../../../src/config/load-settings.js';
import { UsageError } from '../../../src/shared/usage-error.js';
import { Secret } from '../../../src/config/secret.js';
import {
  readCredentialsFile,
  writeCredentialsFile,
} from '../../../src/platform/auth/credentials-file.js';
import { resolveCredentialsSource } from '../../../src/platform/auth/credentials-source.js';

async function folder(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'paw-credentials-'));
}

async function settingsWith(env: Record<string, string>, cwd: string) {
  return (await loadSettings({ env, cwd })).settings.platform;
}

const fileContent = {
  client_id: 'client|11111111-2222-4333-8444-555555555555',
  client_secret: 'the-secret-value',
  name: 'nightly',
  access_token_uri: 'https://acct.example/api/client_token',
};

describe('credentials', () => {
  it('reads the platform credentials file and derives {base_url}', async () => {
    const dir = await folder();
    const file = join(dir, 'sa.json');
    await writeFile(file, JSON.stringify({ ...fileContent, extra: 'tolerated' }));
    const credentials = await readCredentialsFile(file);
    expect(credentials.clientId).toBe(fileContent.client_id);
    expect(credentials.clientSecret.reveal()).toBe('the-secret-value');
    expect(credentials.baseUrl.href).toBe('https://acct.example/');
    expect(credentials.tokenUrl.href).toBe('https://acct.example/api/client_token');
  });

  it('refuses broken files with the file name and without the secret', async () => {
    const dir = await folder();
    const file = join(dir, 'sa.json');
    await writeFile(file, JSON.stringify({ ...fileContent, access_token_uri: 'https://x/oauth' }));
    const error = (await readCredentialsFile(file).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toContain(file);
    expect(error.message).toContain('/api/client_token');
    expect(error.message).not.toContain('the-secret-value');
    await expect(readCredentialsFile(join(dir, 'missing.json'))).rejects.toThrow(
      /no such credentials file/,
    );
  });

  it('says how to provide credentials when there are none, and refuses contradictions', async () => {
    const dir = await folder();
    const file = join(dir, 'sa.json');
    await writeFile(file, JSON.stringify(fileContent));
    await expect(resolveCredentialsSource(await settingsWith({}, dir))).rejects.toThrow(
      /--credentials FILE.*PAW_CREDENTIALS_FILE.*PAW_PLATFORM_URL, PAW_CLIENT_ID and PAW_CLIENT_SECRET/,
    );
    await expect(
      resolveCredentialsSource(
        await settingsWith({ PAW_CREDENTIALS_FILE: file, PAW_CLIENT_ID: 'client|x' }, dir),
      ),
    ).rejects.toThrow(/contradictory/);
    await expect(
      resolveCredentialsSource(
        await settingsWith(
          { PAW_PLATFORM_URL: 'https://a.example', PAW_CLIENT_ID: 'client|x' },
          dir,
        ),
      ),
    ).rejects.toThrow(/PAW_CLIENT_SECRET is missing/);
  });

  it('takes PAW_PLATFORM_URL with a credentials file as a pin: a file for another origin is refused, naming both', async () => {
    const dir = await folder();
    const file = join(dir, 'sa.json');
    await writeFile(file, JSON.stringify(fileContent));
    const origin = new URL(fileContent.access_token_uri).origin;
    const pinned = await resolveCredentialsSource(
      await settingsWith({ PAW_CREDENTIALS_FILE: file, PAW_PLATFORM_URL: origin }, dir),
    );
    expect(pinned.baseUrl.origin).toBe(origin);
    await expect(
      resolveCredentialsSource(
        await settingsWith(
          { PAW_CREDENTIALS_FILE: file, PAW_PLATFORM_URL: 'https://other.example' },
          dir,
        ),
      ),
    ).rejects.toThrow(
      new RegExp(
        `access_token_uri is on ${origin.replace(/\./g, '\\.')}, but the configured platform .* is https://other\\.example`,
      ),
    );
  });

  it('accepts the three variables together', async () => {
    const dir = await folder();
    const source = await resolveCredentialsSource(
      await settingsWith(
        {
          PAW_PLATFORM_URL: 'https://a.example/',
          PAW_CLIENT_ID: 'client|x',
          PAW_CLIENT_SECRET: 's',
        },
        dir,
      ),
    );
    expect(source.current().tokenUrl.href).toBe('https://a.example/api/client_token');
    expect(await source.reload()).toBeUndefined();
  });

  it('refuses plain http:// except to loopback, unless allowed', async () => {
    const dir = await folder();
    const env = {
      PAW_PLATFORM_URL: 'http://platform.example',
      PAW_CLIENT_ID: 'c',
      PAW_CLIENT_SECRET: 's',
    };
    await expect(resolveCredentialsSource(await settingsWith(env, dir))).rejects.toThrow(
      /plain http:\/\/.*PAW_PLATFORM_ALLOW_INSECURE_HTTP/,
    );
    const allowed = await resolveCredentialsSource(
      await settingsWith({ ...env, PAW_PLATFORM_ALLOW_INSECURE_HTTP: 'true' }, dir),
    );
    expect(allowed.baseUrl.origin).toBe('http://platform.example');
    const loopback = await resolveCredentialsSource(
      await settingsWith({ ...env, PAW_PLATFORM_URL: 'http://127.0.0.1:9' }, dir),
    );
    expect(loopback.baseUrl.origin).toBe('http://127.0.0.1:9');
  });

  it('writes credentials atomically with mode 0600 in the platform format', async () => {
    const dir = await folder();
    const file = join(dir, 'new.json');
    await writeFile(file, 'old content', { mode: 0o644 });
    await writeCredentialsFile(file, {
      clientId: 'client|abc',
      clientSecret: new Secret('fresh'),
      name: 'n',
      accessTokenUri: 'https://acct.example/api/client_token',
    });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      client_id: 'client|abc',
      client_secret: 'fresh',
      name: 'n',
      access_token_uri: 'https://acct.example/api/client_token',
    });
    const reread = await readCredentialsFile(file);
    expect(reread.clientSecret.reveal()).toBe('fresh');
  });
});
