import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startCliSimulator, type CliSimulator } from '../cli-simulator.js';

interface AccountResult {
  clientId: string;
  credentialsFile: string | null;
  clientSecret?: string;
}

describe('paw accounts, cluster-session and login against the simulator', () => {
  let t: CliSimulator;
  let adminRole: string;

  beforeAll(async () => {
    t = await startCliSimulator({ seed: 41 });
    adminRole = t.fixtures.roles.find((role) => role.name === 'Administrator')?.id ?? '';
  });
  afterAll(() => t.close());

  const secretsIn = async (text: string): Promise<string[]> =>
    Object.values(t.sim.issuedSecrets())
      .flat()
      .filter((secret) => text.includes(secret));

  it('creates an account into a 0600 credentials file that works, without printing the secret', async () => {
    const out = join(t.dir, 'nightly.json');
    const created = await t.paw([
      'accounts',
      'create',
      '--name',
      'nightly',
      '--role',
      adminRole,
      '--out',
      out,
    ]);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^client id:\s+client\|/m);
    expect(await secretsIn(created.stdout + created.stderr)).toEqual([]);
    expect((await stat(out)).mode & 0o777).toBe(0o600);
    const file = JSON.parse(await readFile(out, 'utf8')) as Record<string, string>;
    expect(Object.keys(file).sort()).toEqual([
      'access_token_uri',
      'client_id',
      'client_secret',
      'name',
    ]);
    expect(file['access_token_uri']).toBe(`${t.sim.baseUrl}/api/client_token`);

    const usingIt = await t.paw(['clusters', 'list', '--credentials', out]);
    expect(usingIt.code).toBe(0);

    const listed = await t.paw(['accounts', 'list']);
    expect(listed.stdout).toMatch(/client\|\S+\s+nightly\s+Administrator/);
  });

  it('refuses to create an account whose secret would be lost, before asking the platform', async () => {
    const before = (await t.stats()).byOperation['graphql'] ?? 0;
    const refused = await t.paw(['accounts', 'create', '--name', 'lost', '--role', adminRole]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--out FILE');
    expect((await t.stats()).byOperation['graphql'] ?? 0).toBe(before);
  });

  it('rotates a secret into the same file, prints it only when asked, re-roles and deletes', async () => {
    const out = join(t.dir, 'rotating.json');
    const created = json<AccountResult>(
      await t.paw([
        'accounts',
        'create',
        '--name',
        'rotating',
        '--role',
        adminRole,
        '--out',
        out,
        '--json',
      ]),
    );
    expect(created.clientSecret).toBeUndefined();
    const before = await readFile(out, 'utf8');

    const rotated = await t.paw([
      'accounts',
      'rotate',
      created.clientId,
      '--out',
      out,
      '--credentials',
      out,
    ]);
    expect(rotated.code).toBe(0);
    expect(await readFile(out, 'utf8')).not.toBe(before);
    expect((await t.paw(['clusters', 'list', '--credentials', out])).code).toBe(0);

    const printed = json<AccountResult>(
      await t.paw(['accounts', 'rotate', created.clientId, '--print-secret', '--json']),
    );
    expect(printed.clientSecret).toEqual(expect.any(String));
    expect(await secretsIn(JSON.stringify(printed))).toEqual([printed.clientSecret]);

    const readOnly = t.fixtures.roles.find((role) => role.name === 'Read Only Admin')?.id ?? '';
    expect(
      (await t.paw(['accounts', 'set-roles', created.clientId, '--role', readOnly])).code,
    ).toBe(0);
    expect((await t.paw(['accounts', 'list'])).stdout).toMatch(/rotating\s+Read Only Admin/);
    expect((await t.paw(['accounts', 'delete', created.clientId])).code).toBe(0);
    expect((await t.paw(['accounts', 'list'])).stdout).not.toContain('rotating');
    const badId = await t.paw(['accounts', 'rotate', 'someone', '--print-secret']);
    expect(badId.code).toBe(2);
  });

  it('opens a cluster session and deletes it by id, leaving none behind', async () => {
    const cluster = t.fixtures.clusters.find(
      (c) => c.supportsPersonalAccessTokens && c.connectionState === 'Connected',
    );
    const created = await t.paw([
      'cluster-session',
      'create',
      '--cluster',
      cluster?.baseUrl ?? '',
      '--json',
    ]);
    expect(created.code).toBe(0);
    const session = json<{ sessionId: string; token?: string; expirationTime: string }>(created);
    expect(session.token).toBeUndefined();
    expect((await t.stats()).liveSessions).toBe(1);
    const deleted = await t.paw([
      'cluster-session',
      'delete',
      session.sessionId,
      '--cluster',
      cluster?.baseUrl ?? '',
    ]);
    expect(deleted.code).toBe(0);
    expect((await t.stats()).liveSessions).toBe(0);
  });

  it('opens a personal-access-token session, deletes it by token, and refuses an old cluster', async () => {
    const pat = {
      PAW_PAT_CLIENT_ID: t.fixtures.personalAccessToken.clientId,
      PAW_PAT_SECRET: t.fixtures.personalAccessToken.clientSecret,
    };
    const modern = t.fixtures.clusters.find(
      (c) => c.supportsPersonalAccessTokens && c.connectionState === 'Connected',
    );
    const created = json<{ token: string }>(
      await t.paw(
        [
          'cluster-session',
          'create',
          '--cluster',
          modern?.baseUrl ?? '',
          '--pat',
          '--show-token',
          '--json',
        ],
        { env: pat },
      ),
    );
    expect((await t.stats()).liveSessions).toBe(1);
    const deleted = await t.paw(
      ['cluster-session', 'delete', '--cluster', modern?.baseUrl ?? '', '--token-stdin'],
      {
        env: pat,
        stdin: created.token,
      },
    );
    expect(deleted.code).toBe(0);
    expect((await t.stats()).liveSessions).toBe(0);

    const old = t.fixtures.clusters.find((c) => !c.supportsPersonalAccessTokens);
    const refused = await t.paw(
      ['cluster-session', 'create', '--cluster', old?.baseUrl ?? '', '--pat'],
      { env: pat },
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('9.6.0');
    expect(refused.stderr).toContain(old?.version ?? '?');
  });

  it('logs in with PKCE through the loopback redirect and stores the token 0600', async () => {
    const app = t.fixtures.oauthApp;
    let browsing: Promise<void> | undefined;
    let buffered = '';
    const run = await t.paw(['login', '--out', 'token.json'], {
      env: {
        PAW_OAUTH_CLIENT_ID: app.clientId,
        PAW_OAUTH_CLIENT_SECRET: app.clientSecret,
        PAW_OAUTH_REDIRECT_URI: 'http://127.0.0.1:0/callback',
        PAW_OAUTH_SCOPE: app.scope,
      },
      onStdout: (chunk) => {
        buffered += chunk;
        const url = /(http:\/\/\S+\/oauth_authorize\?\S+)/.exec(buffered)?.[1];
        if (url !== undefined && browsing === undefined) {
          browsing = (async () => {
            const approval = await request(url);
            await approval.body.dump();
            const landing = await request(String(approval.headers['location']));
            await landing.body.dump();
          })();
        }
      },
    });
    await browsing;
    expect(run.stderr).toBe('waiting for the browser to come back...\n');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Open this URL in your browser');
    const file = join(t.dir, 'token.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    expect(stored).toMatchObject({ token_type: 'Bearer', scope: app.scope });
    expect(await secretsIn(run.stdout + run.stderr)).toEqual([]);
    expect(await secretsIn(JSON.stringify(stored))).toEqual([stored['access_token']]);
  });
});
