import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/shared/usage-error.js';
import { writeCredentialsFile } from '../../../src/platform/auth/credentials-file.js';
import { UnsupportedClusterVersionError } from '../../../src/platform/http/platform-errors.js';
import type { PlatformClient } from '../../../src/platform/platform-client.js';
import type { SimulatorFixtures } from '../../../src/simulator/fixtures.js';
import { startPlatformTestKit, type PlatformTestKit } from '../platform-test-kit.js';
import { createAccountFile } from '../service-account-file.js';

interface Stats {
  liveSessions: number;
  byOperation: Record<string, number>;
  byOperationAndStatus: Record<string, Record<string, number>>;
}

const clusterMe = z.looseObject({ id: z.string(), name: z.string(), version: z.string() });

describe('cluster sessions', () => {
  let kit: PlatformTestKit;
  let fixtures: SimulatorFixtures;
  let patEnv: Record<string, string>;

  beforeAll(async () => {
    // Sessions live two seconds and an account may hold only two per cluster: a client that did
    // not delete what it no longer needs would hit the cap within this file.
    kit = await startPlatformTestKit({
      workloads: 10,
      seed: 4,
      clusterSessionLifetimeSeconds: 2,
      clusterSessionCap: 2,
    });
    fixtures = kit.sim.fixtures();
    patEnv = {
      PAW_PAT_CLIENT_ID: fixtures.personalAccessToken.clientId,
      PAW_PAT_SECRET: fixtures.personalAccessToken.clientSecret,
    };
  });
  afterAll(() => kit.close());

  const stats = async () => (await kit.control('GET', '/_sim/stats')) as Stats;
  const cluster = (modern: boolean) => {
    const found = fixtures.clusters.find(
      (c) => c.supportsPersonalAccessTokens === modern && c.connectionState === 'Connected',
    );
    if (found === undefined) throw new Error(`no ${modern ? 'modern' : 'old'} connected cluster`);
    return found;
  };
  const me = (
    client: PlatformClient,
    url: string,
    kind: 'service-account' | 'personal-access-token',
  ) =>
    client.clusters.request(
      url,
      kind,
      { operation: 'getCluster', method: 'GET', path: '/api/v1/cluster/me' },
      clusterMe,
    );

  it('opens one service-account session and reuses it; close() deletes it', async () => {
    const client = await kit.client();
    const target = cluster(true);
    for (let i = 0; i < 5; i++)
      expect((await me(client, target.baseUrl, 'service-account')).id).toBe(target.id);
    expect(client.clusters.openSessions).toBe(1);
    expect((await stats()).liveSessions).toBe(1);
    await client.close();
    expect((await stats()).liveSessions).toBe(0);
  });

  it('replaces expiring sessions across many calls without ever hitting the session cap', async () => {
    const client = await kit.client();
    const target = cluster(true);
    const before = await stats();
    const deadline = Date.now() + 5_000; // more than two session lifetimes
    let calls = 0;
    while (Date.now() < deadline) {
      await me(client, target.baseUrl, 'service-account');
      calls++;
      expect((await stats()).liveSessions).toBeLessThanOrEqual(1);
      await sleep(100);
    }
    const after = await stats();
    const created =
      (after.byOperation['createServiceAccountSession'] ?? 0) -
      (before.byOperation['createServiceAccountSession'] ?? 0);
    expect(created).toBeGreaterThanOrEqual(2);
    expect(created).toBeLessThan(calls);
    const capped = after.byOperationAndStatus['createServiceAccountSession']?.['403'] ?? 0;
    expect(capped).toBe(0);
    await client.close();
    expect((await stats()).liveSessions).toBe(0);
  });

  it('reads the credentials file again when the cluster refuses a secret rotated under it', async () => {
    const admin = await kit.client();
    const adminRole = fixtures.roles.find((role) => role.name === 'Administrator')?.id ?? '';
    const { file, clientId } = await createAccountFile(admin, kit.dir, 'rotated-for-cluster', [
      adminRole,
    ]);
    const client = await kit.client({ env: { PAW_CREDENTIALS_FILE: file } });
    // Another paw process rotates the secret and writes the new one to the same file after this
    // client read the old one.
    await writeCredentialsFile(file, await admin.graphql.serviceAccounts.rotateSecret(clientId));
    const before = await stats();
    const target = cluster(true);
    expect((await me(client, target.baseUrl, 'service-account')).id).toBe(target.id);
    const after = await stats();
    const refused =
      (after.byOperationAndStatus['createServiceAccountSession']?.['401'] ?? 0) -
      (before.byOperationAndStatus['createServiceAccountSession']?.['401'] ?? 0);
    expect(refused).toBe(1);
    await client.close();
    await admin.close();
  });

  it('opens a personal-access-token session on a 9.6.0+ cluster', async () => {
    const client = await kit.client({ env: patEnv });
    const target = cluster(true);
    expect((await me(client, target.baseUrl, 'personal-access-token')).version).toBe(
      target.version,
    );
    await client.close();
  });

  it('refuses a personal-access-token session on an older cluster before sending the token', async () => {
    const client = await kit.client({ env: patEnv });
    const old = cluster(false);
    const before = (await stats()).byOperation['createPersonalAccessTokenSession'] ?? 0;
    const error = await client.clusters
      .session(old.baseUrl, 'personal-access-token')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsupportedClusterVersionError);
    expect((error as Error).message).toContain(`runs ${old.version}`);
    expect((error as Error).message).toContain('9.6.0');
    expect((await stats()).byOperation['createPersonalAccessTokenSession'] ?? 0).toBe(before);
  });

  it('says how to configure a personal access token when there is none', async () => {
    const client = await kit.client();
    await expect(
      client.clusters.session(cluster(true).baseUrl, 'personal-access-token'),
    ).rejects.toThrow(UsageError);
  });

  it('hands out a session the caller owns, and deletes it by id', async () => {
    const client = await kit.client();
    const target = cluster(true);
    const owned = await client.clusters.open(target.baseUrl, 'service-account');
    expect(owned.sessionId).toEqual(expect.any(String));
    expect((await stats()).liveSessions).toBe(1);
    await client.clusters.deleteSession(target.baseUrl, 'service-account', owned.sessionId ?? '');
    await client.close();
    expect((await stats()).liveSessions).toBe(0);
  });

  it('sends a cluster token only to that cluster', async () => {
    const client = await kit.client();
    const target = cluster(true);
    await client.clusters.session(target.baseUrl, 'service-account');
    const other = fixtures.clusters.find((c) => c.id !== target.id);
    // Each cluster gets its own session: the first cluster's token never travels to the second.
    if (other !== undefined && other.connectionState === 'Connected') {
      const session = await client.clusters.session(other.baseUrl, 'service-account');
      expect(session.clusterOrigin).toBe(new URL(other.baseUrl).origin);
    }
    await client.close();
  });
});
