// Conformance tests read JSON bodies of many shapes and assert each: `any` is the honest type.
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-argument */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './http.js';
import { startTestSimulator, type TestSimulator } from './simulator-fixture.js';

describe('/_sim', () => {
  let t: TestSimulator;

  beforeAll(async () => {
    t = await startTestSimulator({ workloads: 30, seed: 9 });
  });
  afterAll(() => t.close());

  it('serves the fixtures a test needs, without authentication', async () => {
    const response = await t.api('GET', '/_sim/fixtures');
    expect(response.status).toBe(200);
    const fixtures = response.body;
    expect(fixtures.baseUrl).toBe(t.sim.baseUrl);
    expect(fixtures.serviceAccounts.admin).toEqual(t.sim.credentials);
    expect(fixtures.serviceAccounts.readOnly.name).toBe('paw-readonly');
    expect(fixtures.clusters).toHaveLength(4);
    for (const cluster of fixtures.clusters) {
      expect(cluster.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(cluster.supportsPersonalAccessTokens).toBe(cluster.version >= '9.6.0');
    }
    expect(fixtures.personalAccessToken.clientId).toMatch(/^pat\|[0-9a-f-]{36}$/);
    expect(fixtures.oauthApp).toMatchObject({
      redirectUris: ['http://127.0.0.1:8976/callback'],
      scope: 'retrieval',
      authorizeUrl: `${t.sim.baseUrl}/oauth_authorize`,
      tokenUrl: `${t.sim.baseUrl}/api/oauth/token`,
    });
    expect(fixtures.roles.map((role: { name: string }) => role.name)).toContain('Administrator');
    expect(fixtures.slaDomains.map((domain: { name: string }) => domain.name)).toEqual(
      expect.arrayContaining(['Gold', 'Silver', 'Bronze']),
    );
    expect(fixtures.workloads.count).toBe(30);
    expect(fixtures.clusterSessionCap).toBe(10);
  });

  it('counts requests by operation and status, tokens, sessions and jobs, and resets', async () => {
    await t.api('DELETE', '/_sim/stats');
    const token = await t.token();
    await t.api('GET', '/api/rest/workloads', { token });
    await t.api('GET', '/api/rest/workloads/nope', { token });
    await t.api('GET', '/api/rest/workloads', { token: 'bad' });
    const cluster = t.fixtures.clusters[0]?.baseUrl ?? '';
    const admin = t.fixtures.serviceAccounts.admin;
    const session = await call('POST', `${cluster}/api/v1/service_account/session`, {
      json: { clientId: admin.client_id, clientSecret: admin.client_secret },
    });
    await t.api('DELETE', '/api/session', { token });
    const stats = (await t.api('GET', '/_sim/stats')).body;
    expect(stats.requests).toBe(6);
    expect(stats.byOperation).toEqual({
      createClientToken: 1,
      listWorkloads: 2,
      getWorkload: 1,
      createServiceAccountSession: 1,
      deleteSession: 1,
    });
    expect(stats.byStatus).toEqual({ 200: 3, 404: 1, 401: 1, 204: 1 });
    expect(stats.byOperationAndStatus.listWorkloads).toEqual({ 200: 1, 401: 1 });
    expect(stats.tokens.revoked).toBeGreaterThanOrEqual(1);
    expect(stats.liveSessions).toBe(1);
    expect(stats.snapshotJobs).toEqual({ total: 0, byStatus: {} });
    await call('DELETE', `${cluster}/api/v1/session/me`, { token: session.body.token as string });
    expect((await t.api('DELETE', '/_sim/stats')).status).toBe(204);
    expect((await t.api('GET', '/_sim/stats')).body.requests).toBe(0);
  });

  it('lists every secret it has issued', async () => {
    const admin = t.fixtures.serviceAccounts.admin;
    const token = await t.token();
    const cluster = t.fixtures.clusters[0]?.baseUrl ?? '';
    const session = await call('POST', `${cluster}/api/v1/service_account/session`, {
      json: { clientId: admin.client_id, clientSecret: admin.client_secret },
    });
    const app = t.fixtures.oauthApp;
    const verifier = randomBytes(32).toString('base64url');
    const authorize = await t.api(
      'GET',
      `/oauth_authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: app.clientId,
        redirect_uri: app.redirectUris[0] ?? '',
        scope: app.scope,
        state: 's',
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      }).toString()}`,
    );
    const code = new URL(authorize.headers['location'] as string).searchParams.get('code') ?? '';
    const oauthToken = await t.api('POST', '/api/oauth/token', {
      form: {
        grant_type: 'authorization_code',
        client_id: app.clientId,
        client_secret: app.clientSecret,
        code,
        redirect_uri: app.redirectUris[0] ?? '',
        code_verifier: verifier,
      },
    });
    const secrets = (await t.api('GET', '/_sim/issued-secrets')).body;
    expect(secrets.clientSecrets).toEqual(
      expect.arrayContaining([
        admin.client_secret,
        t.fixtures.personalAccessToken.clientSecret,
        app.clientSecret,
      ]),
    );
    expect(secrets.accessTokens).toContain(token);
    expect(secrets.sessionTokens).toContain(session.body.token);
    expect(secrets.oauthCodes).toContain(code);
    expect(secrets.oauthTokens).toContain(oauthToken.body.access_token);
    expect(t.sim.issuedSecrets().accessTokens).toContain(token);
  });

  it('switches the shape of the job-status link', async () => {
    const vm = t.fixtures.workloads.samples.vsphereVm ?? '';
    const shapes: [Record<string, unknown>, (metadata: unknown, path: string) => void][] = [
      [
        { shape: 'jobStatusLink' },
        (m, p) => expect(m).toEqual({ jobStatusLink: `${t.sim.baseUrl}${p}` }),
      ],
      [{ shape: 'link', relative: true }, (m, p) => expect(m).toEqual({ link: p })],
      [{ shape: 'href' }, (m, p) => expect(m).toEqual({ href: `${t.sim.baseUrl}${p}` })],
      [
        { shape: 'links', rel: 'status' },
        (m, p) => expect(m).toEqual({ links: [{ href: `${t.sim.baseUrl}${p}`, rel: 'status' }] }),
      ],
      [
        { shape: 'jobStatusUrl' },
        (m, p) => expect(m).toEqual({ jobStatusUrl: `${t.sim.baseUrl}${p}` }),
      ],
    ];
    for (const [shape, check] of shapes) {
      const set = await t.api('PUT', '/_sim/job-status-link', { json: shape });
      expect(set.status).toBe(200);
      expect((await t.api('GET', '/_sim/job-status-link')).body).toEqual(set.body);
      const trigger = await t.rest('POST', `/workloads/${vm}/snapshots`);
      const path = `/api/rest/workloads/${vm}/snapshot-jobs/${encodeURIComponent(trigger.body.data.id as string)}`;
      check(trigger.body.metadata, path);
    }
    expect(
      (await t.api('PUT', '/_sim/job-status-link', { json: { shape: 'carrier-pigeon' } })).status,
    ).toBe(400);
  });

  it('sets a workload’s SLA Domain by hand', async () => {
    const vm = t.fixtures.workloads.samples.vsphereVm ?? '';
    const bronze = t.fixtures.slaDomains.find((domain) => domain.name === 'Bronze')?.id ?? '';
    const set = await t.api('PUT', `/_sim/workloads/${vm}/sla-domain`, {
      json: { slaDomainId: bronze },
    });
    expect(set.body).toEqual({ id: vm, slaDomainId: bronze });
    expect((await t.rest('GET', `/workloads/${vm}`)).body.data.slaDomainName).toBe('Bronze');
    await t.api('PUT', `/_sim/workloads/${vm}/sla-domain`, { json: { slaDomainId: null } });
    expect((await t.rest('GET', `/workloads/${vm}`)).body.data.slaDomainId).toBeNull();
    expect(
      (await t.api('PUT', `/_sim/workloads/${vm}/sla-domain`, { json: { slaDomainId: 'nope' } }))
        .status,
    ).toBe(404);
    expect(
      (await t.api('PUT', '/_sim/workloads/nope/sla-domain', { json: { slaDomainId: null } }))
        .status,
    ).toBe(404);
  });

  it('pauses an SLA Domain by hand, as someone else, with a note', async () => {
    const archive = t.fixtures.slaDomains.find((domain) => domain.name === 'Archive')?.id ?? '';
    const [cluster] = t.fixtures.clusters;
    const paused = await t.api('POST', `/_sim/sla-domains/${archive}/pause`, {
      json: { clusterIds: [cluster?.id], pausedBy: 'storage-team@example.com', note: 'SAN swap' },
    });
    expect(paused.status).toBe(200);
    expect(paused.body).toEqual({
      id: archive,
      pauses: [
        {
          clusterId: cluster?.id,
          pausedBy: 'storage-team@example.com',
          note: 'SAN swap',
          since: expect.any(Number),
        },
      ],
    });
    const all = await t.api('POST', `/_sim/sla-domains/${archive}/pause`);
    expect(all.body.pauses).toHaveLength(t.fixtures.clusters.length);
    expect(all.body.pauses[1]).toMatchObject({
      pausedBy: t.fixtures.user.email,
      note: expect.stringMatching(/\w/),
    });
    const rest = (await t.rest('GET', `/sla-domains/${archive}`)).body.data;
    expect(
      rest.clusters.filter((entry: { pauseStatus: string }) => entry.pauseStatus === 'PAUSED'),
    ).toHaveLength(t.fixtures.clusters.filter((c) => c.connectionState !== 'Disconnected').length);
    await t.rest('POST', `/sla-domains/${archive}/resume`);
    expect((await t.api('POST', '/_sim/sla-domains/nope/pause')).status).toBe(404);
    const foreign = await t.api('POST', `/_sim/sla-domains/${archive}/pause`, {
      json: { clusterIds: ['not-a-cluster-of-it'] },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toMatch(/not-a-cluster-of-it/);
  });

  it('sets the quorum-authorization policies a rotation reports as suspended', async () => {
    expect((await t.api('GET', '/_sim/suspended-tpr-policies')).body).toEqual({ policyIds: [] });
    const set = await t.api('PUT', '/_sim/suspended-tpr-policies', {
      json: { policyIds: ['policy-a'] },
    });
    expect(set.body).toEqual({ policyIds: ['policy-a'] });
    expect((await t.api('GET', '/_sim/suspended-tpr-policies')).body).toEqual(set.body);
    const bad = await t.api('PUT', '/_sim/suspended-tpr-policies', { json: { ids: [] } });
    expect(bad.status).toBe(400);
    await t.api('PUT', '/_sim/suspended-tpr-policies', { json: { policyIds: [] } });
  });

  it('lists every snapshot job with the schedule drawn at its trigger', async () => {
    const vm = t.fixtures.workloads.samples.vsphereVm ?? '';
    const trigger = await t.rest('POST', `/workloads/${vm}/snapshots`);
    const jobId = trigger.body.data.id as string;
    const report = (await t.api('GET', '/_sim/jobs')).body;
    expect(report).toMatchObject({ timeScale: 1, concurrencyPerCluster: 32, queuedMs: 2000 });
    const job = report.jobs.find((entry: { id: string }) => entry.id === jobId);
    expect(job).toMatchObject({ workloadId: vm, clusterId: expect.any(String) });
    expect(['SUCCEEDED', 'FAILED', 'CANCELED']).toContain(job.outcome);
    expect(job.startAt).toBeGreaterThanOrEqual(job.triggeredAt + 2000);
    expect(job.endAt - job.startAt).toBe(job.runMs);
    expect(job.durationMs).toBeGreaterThanOrEqual(10_000);
    // Trigger order: the newest job is last.
    expect(report.jobs.at(-1).id).toBe(jobId);
  });

  it('answers unknown /_sim routes with 404', async () => {
    const response = await t.api('GET', '/_sim/nothing');
    expect(response.status).toBe(404);
    expect(response.body.error).toEqual(expect.any(String));
  });
});
