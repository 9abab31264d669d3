import { afterEach, describe, expect, it } from 'vitest';
import { loadSettings } from '../../../src/config/load-settings.js';
import { silentLogger } from '../../../src/shared/logger.js';
import {
  createPlatformClient,
  type PlatformClient,
} from '../../../src/platform/platform-client.js';
import { startTinyServer, tokenAnswer, type TinyServer } from '../tiny-server.js';

/**
 * A snapshot followed through its activity asks, on each later poll, only for what changed since
 * the last one (`lastUpdatedTimeGt`), and reads an empty answer as "nothing changed". A tiny
 * server plays the platform so that the requests themselves can be read.
 */
describe('GraphQL activity polls', () => {
  const CLIENT_ID = 'client|11111111-2222-4333-8444-555555555555';
  const WORKLOAD = '33333333-4444-4555-8666-777777777777';
  const SERIES = '44444444-5555-4666-8777-888888888888';
  let server: TinyServer | undefined;
  let client: PlatformClient | undefined;
  afterEach(async () => {
    await client?.close();
    await server?.close();
  });

  const series = (status: string, lastUpdated: string) => ({
    id: 7,
    activitySeriesId: SERIES,
    objectId: `VirtualMachine:::${WORKLOAD}`,
    fid: WORKLOAD,
    objectName: 'vm-1',
    objectType: 'VmwareVm',
    isOnDemand: true,
    lastActivityType: 'Backup',
    lastActivityStatus: status,
    severity: 'Info',
    startTime: '2026-11-26T01:00:00.000Z',
    lastUpdated,
    clusterUuid: '55555555-6666-4777-8888-999999999999',
    lastActivityMessage: null,
  });

  it('asks only for what changed since the last poll, and an empty answer changes nothing', async () => {
    const answers = [
      [series('Running', '2026-11-26T01:00:05.000Z')],
      [],
      [series('Success', '2026-11-26T01:01:00.000Z')],
    ];
    const filters: Record<string, unknown>[] = [];
    server = await startTinyServer((request) => {
      if (request.url.pathname === '/api/client_token') return tokenAnswer(CLIENT_ID);
      if (request.url.pathname === '/api/session') return { status: 204 };
      const body = JSON.parse(request.body) as {
        operationName: string;
        variables: { filters: Record<string, unknown> };
      };
      if (body.operationName !== 'activitySeriesConnection') return undefined;
      filters.push(body.variables.filters);
      const nodes = answers.shift() ?? [];
      return {
        status: 200,
        body: {
          data: {
            activitySeriesConnection: {
              count: nodes.length,
              nodes,
              pageInfo: { endCursor: '', hasNextPage: false },
            },
          },
        },
      };
    });
    const { settings } = await loadSettings({
      env: {
        PAW_PLATFORM_URL: server.baseUrl,
        PAW_CLIENT_ID: CLIENT_ID,
        PAW_CLIENT_SECRET: 'tiny-secret',
        PAW_PLATFORM_API: 'graphql',
      },
    });
    client = await createPlatformClient({ settings, logger: silentLogger() });
    const tracking = {
      via: 'activity',
      workloadId: WORKLOAD,
      activityId: SERIES,
      since: '2026-11-26T01:00:00.000Z',
    } as const;

    const first = await client.graphql.workloads.readSnapshotJob(tracking);
    const second = await client.graphql.workloads.readSnapshotJob(tracking);
    const third = await client.graphql.workloads.readSnapshotJob(tracking);

    expect([first.phase, second.phase, third.phase]).toEqual([
      'in_progress',
      'in_progress',
      'succeeded',
    ]);
    expect(second).toEqual(first);
    expect(filters[0]).not.toHaveProperty('lastUpdatedTimeGt');
    expect(filters[1]).toMatchObject({ lastUpdatedTimeGt: '2026-11-26T01:00:05.000Z' });
    expect(filters[2]).toMatchObject({ lastUpdatedTimeGt: '2026-11-26T01:00:05.000Z' });
    expect(filters.every((filter) => filter['objectFid'] !== undefined)).toBe(true);
  });
});
