import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';
import { request } from 'undici';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCredentialsFile } from '../../src/platform/auth/credentials-file.js';
import { TokenBucketGate } from '../../src/platform/rate-limit/token-bucket-gate.js';
import { waitForSnapshotJob } from '../../src/platform/jobs/wait-for-snapshot-job.js';
import { startPlatformTestKit, type PlatformTestKit } from './platform-test-kit.js';

/**
 * Every flow of the client, logged at debug level into one capture, with faults on; then every
 * secret and token the simulator ever issued is looked for in the log and in every error message.
 */
describe('no secret or token reaches a log or an error message', () => {
  let kit: PlatformTestKit;
  const errors: string[] = [];
  const keep = (error: unknown) => {
    errors.push(error instanceof Error ? `${error.message} ${inspect(error)}` : String(error));
  };

  beforeAll(async () => {
    kit = await startPlatformTestKit({
      workloads: 40,
      seed: 13,
      timeScale: 2000,
      tokenLifetimeSeconds: 2,
      clusterSessionLifetimeSeconds: 2,
      jobs: { failureRate: 0, cancelRate: 0 },
    });
  });
  afterAll(() => kit.close());

  it('holds for tokens, REST, snapshots, faults, GraphQL, cluster sessions and OAuth', async () => {
    const fixtures = kit.sim.fixtures();
    const env = {
      PAW_PLATFORM_RETRY_BASE_DELAY_MS: '10',
      PAW_PAT_CLIENT_ID: fixtures.personalAccessToken.clientId,
      PAW_PAT_SECRET: fixtures.personalAccessToken.clientSecret,
      PAW_OAUTH_CLIENT_ID: fixtures.oauthApp.clientId,
      PAW_OAUTH_CLIENT_SECRET: fixtures.oauthApp.clientSecret,
      PAW_OAUTH_REDIRECT_URI: 'http://127.0.0.1:0/callback',
      PAW_OAUTH_SCOPE: fixtures.oauthApp.scope,
    };
    const frozen = Date.now();
    // A clock that stands still (the client sees a 401 after 2 s) and a gate with short pauses.
    const client = await kit.client({
      env,
      now: () => frozen,
      requestGate: new TokenBucketGate({ requestsPerSecond: 200, penaltyMs: 20, maxPenaltyMs: 50 }),
    });
    const vm = fixtures.workloads.samples.vsphereVm ?? '';
    const admin = fixtures.roles.find((role) => role.name === 'Administrator')?.id ?? '';

    // REST, a snapshot and its job.
    await client.rest.workloads.list().toArray(50);
    const workload = await client.rest.workloads.get(vm);
    const trigger = await client.rest.workloads.takeSnapshot(workload);
    await waitForSnapshotJob({
      read: (signal) => client.rest.workloads.readSnapshotJob(trigger.tracking, signal),
      initial: trigger.job,
      nextDelay: () => 20,
    });
    await client.rest.slaDomains.list().toArray();
    await client.rest.events.list().toArray(10);
    await client.rest.workloads.get('no-such-workload').catch(keep);

    // Faults: 429, 5xx, reset, malformed.
    await kit.control('PUT', '/_sim/faults', {
      default: {
        tooManyRequestsRate: 0.25,
        errorRate: 0.25,
        resetRate: 0.25,
        malformedRate: 0.25,
        times: 12,
      },
    });
    for (let i = 0; i < 15; i++) await client.rest.workloads.get(vm).catch(keep);
    await kit.control('PUT', '/_sim/faults', { operations: {} });

    // The token expires under a client whose clock stands still: 401, refresh, replay.
    await sleep(2_200);
    await client.rest.workloads.get(vm);

    // GraphQL: create, re-role, rotate (written to a file a running client then re-reads), delete.
    const created = await client.graphql.serviceAccounts.create({
      name: 'leak-check',
      roleIds: [admin],
    });
    const file = `${kit.dir}/leak-check.json`;
    await writeCredentialsFile(file, created);
    const rotating = await kit.client({ env: { PAW_CREDENTIALS_FILE: file } });
    await rotating.rest.workloads.get(vm);
    await writeCredentialsFile(
      file,
      await client.graphql.serviceAccounts.rotateSecret(created.clientId),
    );
    await sleep(2_200);
    await rotating.rest.workloads.get(vm);
    await client.graphql.serviceAccounts.setRoles(created.clientId, [admin]);
    await client.graphql.serviceAccounts
      .rotateSecret('client|00000000-0000-4000-8000-000000000000')
      .catch(keep);

    // Cluster sessions: service account, personal access token, an old cluster, replacement.
    const modern = fixtures.clusters.find(
      (c) => c.supportsPersonalAccessTokens && c.connectionState === 'Connected',
    );
    const old = fixtures.clusters.find((c) => !c.supportsPersonalAccessTokens);
    const me = z.looseObject({ id: z.string() });
    const path = { operation: 'getCluster', method: 'GET', path: '/api/v1/cluster/me' } as const;
    await client.clusters.request(modern?.baseUrl ?? '', 'service-account', path, me);
    await client.clusters.request(modern?.baseUrl ?? '', 'personal-access-token', path, me);
    await client.clusters.session(old?.baseUrl ?? '', 'personal-access-token').catch(keep);
    const owned = await client.clusters.open(modern?.baseUrl ?? '', 'service-account');
    await client.clusters.deleteSession(
      modern?.baseUrl ?? '',
      'service-account',
      owned.sessionId ?? '',
    );
    await sleep(2_200);
    await client.clusters.request(modern?.baseUrl ?? '', 'service-account', path, me);

    // OAuth with PKCE, the test playing the browser.
    let browsing: Promise<void> | undefined;
    await client.oauth.login({
      onAuthorizeUrl: (url) => {
        browsing = (async () => {
          const approval = await request(url);
          await approval.body.dump();
          const landing = await request(String(approval.headers['location']));
          await landing.body.dump();
        })();
      },
    });
    await browsing;

    await client.graphql.serviceAccounts.delete([created.clientId]);
    await client.close();
    await rotating.close();

    // The capture holds real work, at debug level, with one info line per platform call.
    const records = kit.logs.records();
    const calls = records.filter((record) => record['msg'] === 'platform call');
    expect(calls.length).toBeGreaterThan(50);
    for (const call of calls) {
      expect([typeof call['method'], typeof call['route'], typeof call['operationId']]).toEqual([
        'string',
        'string',
        'string',
      ]);
      expect(typeof call['ms']).toBe('number');
      expect(call).toHaveProperty('status');
    }
    expect(records.some((record) => record['level'] === 20)).toBe(true);
    expect(calls.some((call) => call['status'] === 401)).toBe(true);
    expect(calls.some((call) => call['status'] === 429)).toBe(true);
    expect(calls.some((call) => call['operationId'] === 'oauthToken')).toBe(true);
    expect(errors.length).toBeGreaterThan(3);

    const secrets = [
      ...kit.issuedSecrets(),
      fixtures.personalAccessToken.clientSecret,
      fixtures.oauthApp.clientSecret,
      fixtures.serviceAccounts.admin.client_secret,
    ];
    expect(secrets.length).toBeGreaterThan(10);
    const log = kit.logs.text();
    const everything = `${log}\n${errors.join('\n')}`;
    const leaked = secrets.filter((secret) => everything.includes(secret));
    expect(leaked).toEqual([]);
  });
});
