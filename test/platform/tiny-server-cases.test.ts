import { afterEach, describe, expect, it } from 'vitest';
import { AuthenticationError, ProtocolError } from '../../src/platform/http/platform-errors.js';
import type { PlatformClient } from '../../src/platform/platform-client.js';
import { captureLogs } from '../testkit/log-capture.js';
import {
  envelope,
  startTinyPlatform,
  startTinyServer,
  TINY_CLIENT_ID,
  tokenAnswer,
  type TinyHandler,
  type TinyServer,
} from './tiny-server.js';

/**
 * The few behaviours the simulator never shows (it is a well-behaved platform): repeated cursors,
 * links to another origin, odd token responses, a platform that refuses every token. A tiny
 * server on 127.0.0.1 plays the platform for each.
 */
describe('platform misbehaviour, from a tiny local server', () => {
  const servers: TinyServer[] = [];
  const clients: PlatformClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  async function platform(
    handler: TinyHandler,
    logs = captureLogs(),
    ownTokenEndpoint = false,
  ): Promise<{ server: TinyServer; client: PlatformClient }> {
    const started = await startTinyPlatform(handler, { logger: logs.logger, ownTokenEndpoint });
    servers.push(started.server);
    clients.push(started.client);
    return started;
  }

  const page = (ids: string[], endCursor: string | null, hasNextPage: boolean) =>
    envelope({
      nodes: ids.map((id) => ({ id, name: id, type: 'VSPHERE_VM' })),
      count: 99,
      pageInfo: { startCursor: null, endCursor, hasNextPage, hasPreviousPage: false },
    });

  it('stops with CURSOR_REPEATED when the platform hands back a cursor it gave before', async () => {
    const { client, server } = await platform((request) => {
      const after = request.url.searchParams.get('after');
      if (after === null) return page(['a', 'b'], 'c1', true);
      if (after === 'c1') return page(['c', 'd'], 'c2', true);
      return page(['e'], 'c1', true); // back to the start: an endless loop if followed
    });
    const seen: string[] = [];
    const error = await (async () => {
      for await (const workload of client.rest.workloads.list()) seen.push(workload.id);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({ code: 'CURSOR_REPEATED', operation: 'listWorkloads' });
    expect(seen).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(server.requests.filter((r) => r.url.pathname === '/api/rest/workloads')).toHaveLength(3);
  });

  it('stops when more pages are promised without a cursor, and ends on hasNextPage false', async () => {
    const { client } = await platform(() => page(['a'], null, true));
    await expect(client.rest.workloads.list().toArray()).rejects.toMatchObject({
      code: 'CURSOR_MISSING',
    });
    const done = await platform(() => page(['a', 'b'], 'c9', false));
    expect((await done.client.rest.workloads.list().toArray()).map((w) => w.id)).toEqual([
      'a',
      'b',
    ]);
  });

  it('never follows a job link to another origin with the token: it reads the job through the route table, warning once', async () => {
    const foreign = await startTinyServer(() => envelope({ id: 'j', status: 'SUCCEEDED' }));
    servers.push(foreign);
    const logs = captureLogs();
    const jobId = 'CREATE_VSPHERE_SNAPSHOT_w_r:::0';
    const { client, server } = await platform(
      (request) =>
        request.method === 'POST'
          ? {
              status: 202,
              body: {
                data: { id: jobId, status: 'QUEUED' },
                error: null,
                metadata: { jobStatusUrl: `${foreign.baseUrl}/steal-my-token` },
              },
            }
          : envelope({ id: jobId, status: 'RUNNING', progress: 40 }),
      logs,
    );
    const workload = {
      id: 'w',
      name: 'w',
      type: 'VSPHERE_VM',
      kind: 'VSPHERE_VM',
      clusterId: undefined,
      clusterName: undefined,
      slaDomainId: undefined,
      slaDomainName: undefined,
    };
    const trigger = await client.rest.workloads.takeSnapshot(workload);
    expect(trigger.tracking).toEqual({
      via: 'job',
      workloadId: 'w',
      jobId,
      clusterId: undefined,
      onDemandSnapshot: 'vsphere-vm',
      statusUrl: undefined,
    });
    await client.rest.workloads.takeSnapshot(workload);
    const job = await client.rest.workloads.readSnapshotJob(trigger.tracking);
    expect(job).toMatchObject({ id: jobId, status: 'RUNNING', phase: 'in_progress', progress: 40 });
    expect(foreign.requests).toHaveLength(0);
    expect(server.requests.map((request) => request.url.pathname)).toContain(
      `/api/rest/workloads/w/snapshot-jobs/${encodeURIComponent(jobId)}`,
    );
    const warnings = logs.records().filter((line) => /another origin/.test(String(line['msg'])));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ linkOrigin: foreign.baseUrl });
  });

  it('resolves relative job links against the REST base, and paths under it against the platform', async () => {
    const jobId = 'MSSQL_DB_BACKUP_w_r:::0';
    for (const [link, expected] of [
      ['snapshot-jobs/rel-1', '/api/rest/snapshot-jobs/rel-1'],
      ['/jobs/rel-2', '/api/rest/jobs/rel-2'],
      ['/api/rest/jobs/rel-3', '/api/rest/jobs/rel-3'],
    ] as const) {
      const { client, server } = await platform((request) =>
        request.method === 'POST'
          ? {
              status: 202,
              body: { data: { id: jobId, status: 'QUEUED' }, error: null, metadata: { link } },
            }
          : envelope({ id: jobId, status: 'SUCCEEDED' }),
      );
      const trigger = await client.rest.workloads.takeSnapshot({
        id: 'w',
        name: 'w',
        type: 'Mssql',
        kind: 'MSSQL_DATABASE',
        clusterId: undefined,
        clusterName: undefined,
        slaDomainId: undefined,
        slaDomainName: undefined,
      });
      expect(await client.rest.workloads.readSnapshotJob(trigger.tracking)).toMatchObject({
        phase: 'succeeded',
      });
      expect(server.requests.at(-1)?.url.pathname).toBe(expected);
    }
  });

  it('refuses a token issued for another client_id', async () => {
    const { client, server } = await platform(
      (request) =>
        request.url.pathname === '/api/client_token'
          ? tokenAnswer('client|someone-else')
          : envelope({}),
      captureLogs(),
      true,
    );
    const error = await client.rest.workloads.get('w').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({ code: 'CLIENT_ID_MISMATCH', operation: 'clientToken' });
    expect(server.requests.filter((r) => r.url.pathname.startsWith('/api/rest'))).toHaveLength(0);
  });

  it('falls back to the default lifetime when expires_in is missing', async () => {
    const { client, server } = await platform(
      (request) =>
        request.url.pathname === '/api/client_token'
          ? { status: 200, body: { client_id: TINY_CLIENT_ID, access_token: 'no-expiry' } }
          : envelope({ id: 'w', name: 'w', type: 'VSPHERE_VM' }),
      captureLogs(),
      true,
    );
    for (let i = 0; i < 3; i++) await client.rest.workloads.get('w');
    expect(client.tokens.stats.tokenRequests).toBe(1);
    const rest = server.requests.find((r) => r.url.pathname.startsWith('/api/rest'));
    expect(rest?.headers.authorization).toBe('Bearer no-expiry');
  });

  it('replays exactly once after a 401, then gives up with AuthenticationError', async () => {
    const { client, server } = await platform(() => ({
      status: 401,
      body: {
        code: 16,
        message: 'JWT validation failed: Missing or invalid credentials',
        details: [],
      },
    }));
    const error = await client.rest.workloads.get('w').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(server.requests.filter((r) => r.url.pathname.startsWith('/api/rest'))).toHaveLength(2);
    expect(server.requests.filter((r) => r.url.pathname === '/api/client_token')).toHaveLength(2);
  });

  it('reports a 200 that is not an envelope as ProtocolError, without repeating it', async () => {
    const { client, server } = await platform(() => ({ status: 200, body: { workload: 'w' } }));
    const error = await client.rest.workloads.get('w').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({ code: 'UNEXPECTED_RESPONSE', status: 200 });
    expect(server.requests.filter((r) => r.url.pathname.startsWith('/api/rest'))).toHaveLength(1);
  });

  it('classifies an envelope that reports an error under a 200 by its code', async () => {
    const { client } = await platform(() => ({
      status: 200,
      body: { data: null, metadata: null, error: { code: 'NOT_FOUND', message: 'gone', more: 1 } },
    }));
    await expect(client.rest.workloads.get('w')).rejects.toMatchObject({
      kind: 'not_found',
      code: 'NOT_FOUND',
      platformMessage: 'gone',
    });
  });

  it('sends the token request form-encoded, with grant_type', async () => {
    const { client, server } = await platform(() =>
      envelope({ id: 'w', name: 'w', type: 'VSPHERE_VM' }),
    );
    await client.rest.workloads.get('w');
    const tokenRequest = server.requests.find((r) => r.url.pathname === '/api/client_token');
    expect(tokenRequest?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(tokenRequest?.body))).toEqual({
      client_id: TINY_CLIENT_ID,
      client_secret: 'tiny-secret',
      grant_type: 'client_credentials',
    });
  });
});
