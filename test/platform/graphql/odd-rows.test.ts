import { afterEach, describe, expect, it } from 'vitest';
import { loadSettings } from '../../../src/config/load-settings.js';
import { ProtocolError } from '../../../src/platform/http/platform-errors.js';
import {
  createPlatformClient,
  type PlatformClient,
} from '../../../src/platform/platform-client.js';
import { captureLogs } from '../../testkit/log-capture.js';
import { startTinyServer, tokenAnswer, type TinyServer } from '../tiny-server.js';

/**
 * What the published schema allows and the simulator never sends: a status row without its
 * (nullable) cluster, a node with a never-null field missing. A tiny server on 127.0.0.1 answers
 * GraphQL as the platform could.
 */
describe('GraphQL answers with odd rows, from a tiny local server', () => {
  const CLIENT_ID = 'client|11111111-2222-4333-8444-555555555555';
  const SLA = '22222222-3333-4444-8555-666666666666';
  const servers: TinyServer[] = [];
  const clients: PlatformClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  async function platform(answers: Record<string, unknown>) {
    const logs = captureLogs();
    const server = await startTinyServer((request) => {
      if (request.url.pathname === '/api/client_token') return tokenAnswer(CLIENT_ID);
      if (request.url.pathname === '/api/session') return { status: 204 };
      const { operationName } = JSON.parse(request.body) as { operationName: string };
      const data = answers[operationName];
      return data === undefined ? undefined : { status: 200, body: { data } };
    });
    servers.push(server);
    const { settings } = await loadSettings({
      env: {
        PAW_PLATFORM_URL: server.baseUrl,
        PAW_CLIENT_ID: CLIENT_ID,
        PAW_CLIENT_SECRET: 'tiny-secret',
        PAW_PLATFORM_API: 'graphql',
        PAW_PLATFORM_RETRY_BASE_DELAY_MS: '10',
      },
    });
    const client = await createPlatformClient({ settings, logger: logs.logger });
    clients.push(client);
    return { client, logs };
  }

  const pageInfo = { endCursor: '', hasNextPage: false };

  it("reports and skips an SLA Domain's status row that names no cluster, and reads the others", async () => {
    const { client, logs } = await platform({
      slaDomain: {
        slaDomain: {
          __typename: 'GlobalSlaReply',
          id: SLA,
          name: 'Gold',
          description: '',
          objectTypes: ['VSPHERE_OBJECT_TYPE'],
          protectedObjectCount: 3,
          pausedClustersInfo: null,
        },
      },
      globalSlaStatuses: {
        globalSlaStatuses: {
          count: 3,
          nodes: [
            { cluster: { id: 'c-1', name: 'one' }, pauseStatus: 'NOT_PAUSED', pausedSlaInfo: null },
            { cluster: null, pauseStatus: 'PAUSED', pausedSlaInfo: null },
            {
              cluster: { id: 'c-3', name: 'three' },
              pauseStatus: 'PAUSED',
              pausedSlaInfo: { pausedBy: 'alice', pauseNote: 'disk swap', pauseStartDate: null },
            },
          ],
          pageInfo,
        },
      },
    });
    const domain = await client.graphql.slaDomains.get(SLA);
    expect(domain.clusters?.map((cluster) => cluster.clusterId)).toEqual(['c-1', 'c-3']);
    expect(domain.clusters?.[1]?.pause).toEqual({
      pausedBy: 'alice',
      note: 'disk swap',
      since: undefined,
    });
    expect(logs.records()).toContainEqual(
      expect.objectContaining({
        level: 40,
        operation: 'globalSlaStatuses',
        skippedCount: 1,
        skipped: [
          {
            path: 'nodes[1]',
            problem: 'names no cluster, so paw cannot pause or resume it there',
          },
        ],
      }),
    );
  });

  it('skips a workload whose never-null name came null, and fails a page without its count', async () => {
    const node = (id: string, name: string | null) => ({
      id,
      fid: '33333333-4444-4555-8666-77777777777' + id,
      name,
      objectType: 'VmwareVirtualMachine',
      cluster: null,
      slaDomain: null,
    });
    const { client, logs } = await platform({
      snappableConnection: {
        snappableConnection: { count: 2, nodes: [node('1', 'vm-1'), node('2', null)], pageInfo },
      },
    });
    const workloads = await client.graphql.workloads.list().toArray();
    expect(workloads.map((workload) => workload.name)).toEqual(['vm-1']);
    expect(logs.records()).toContainEqual(
      expect.objectContaining({
        operation: 'snappableConnection',
        skipped: [
          {
            path: 'snappableConnection.nodes[1]',
            problem: 'snappableConnection.nodes[1].name: is null; the schema says it is never null',
          },
        ],
      }),
    );
    const broken = await platform({
      snappableConnection: { snappableConnection: { count: null, nodes: [], pageInfo } },
    });
    await expect(broken.client.graphql.workloads.list().toArray()).rejects.toBeInstanceOf(
      ProtocolError,
    );
  });
});
