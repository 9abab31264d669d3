import { afterEach, describe, expect, it } from 'vitest';
import { ProtocolError, UnavailableError } from '../../src/platform/http/platform-errors.js';
import type { PlatformClient } from '../../src/platform/platform-client.js';
import { captureLogs } from '../testkit/log-capture.js';
import {
  startTinyPlatform,
  TINY_CLIENT_ID,
  type TinyHandler,
  type TinyServer,
} from './tiny-server.js';

/** JSON nested `depth` levels deep: `[[[…]]]`, valid, and costly to parse into objects. */
function nested(depth: number): string {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

/**
 * 400,000 levels in 800 KB: under every size bound, so only the depth limit stops it. (At 32 MB,
 * what any answer was allowed before, such a body cost 1.6 GB and 7 s to parse.)
 */
const BOMB = nested(400_000);

/**
 * What one platform answer may cost is bounded before JSON.parse allocates: a body deeper than
 * paw's nesting limit, or larger than what its endpoint ever sends, is refused as a typed
 * platform error with a clear message. A tiny server on 127.0.0.1 plays the platform.
 */
describe('the cost of one platform answer is bounded', () => {
  const servers: TinyServer[] = [];
  const clients: PlatformClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  async function platform(handler: TinyHandler, ownTokenEndpoint = false): Promise<PlatformClient> {
    const { server, client } = await startTinyPlatform(handler, {
      logger: captureLogs().logger,
      ownTokenEndpoint,
    });
    servers.push(server);
    clients.push(client);
    return client;
  }

  it('refuses a REST answer nested deeper than the limit, before parsing it', async () => {
    const client = await platform(() => ({
      status: 200,
      raw: `{"data":${BOMB},"error":null,"metadata":null}`,
    }));
    const error = await client.rest.workloads.get('w').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({
      operation: 'getWorkload',
      code: 'RESPONSE_TOO_LARGE',
      message: expect.stringMatching(/nested deeper than 64 levels/) as unknown,
    });
  });

  it('refuses a GraphQL answer nested deeper than the limit', async () => {
    const client = await platform(() => ({ status: 200, raw: `{"data":${nested(1000)}}` }));
    const error = await client.graphql.workloads
      .get('0f3e1c2a-4b5d-4e6f-8a9b-0c1d2e3f4a5b')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({
      code: 'RESPONSE_TOO_LARGE',
      message: expect.stringMatching(/nested deeper than 64 levels/) as unknown,
    });
  });

  it("refuses an answer larger than its endpoint's bound: one workload is never 2 MiB", async () => {
    const client = await platform(() => ({
      status: 200,
      body: {
        data: { id: 'w', name: 'x'.repeat(2 * 1024 * 1024), type: 'VSPHERE_VM' },
        error: null,
        metadata: null,
      },
    }));
    const error = await client.rest.workloads.get('w').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({
      operation: 'getWorkload',
      code: 'RESPONSE_TOO_LARGE',
      message: expect.stringMatching(
        /larger than 1 MiB, the most paw accepts for getWorkload/,
      ) as unknown,
    });
  });

  it('refuses a token answer nested deeper than the limit', async () => {
    const client = await platform(
      (request) =>
        request.url.pathname === '/api/client_token'
          ? { status: 200, raw: `{"client_id":"${TINY_CLIENT_ID}","access_token":${nested(500)}}` }
          : undefined,
      true,
    );
    const error = await client.rest.workloads.get('w').catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'RESPONSE_TOO_LARGE',
      message: expect.stringMatching(/nested deeper than 64 levels/) as unknown,
    });
  });

  it('classifies a failure whose body is a nesting bomb by its status, without parsing the body', async () => {
    const client = await platform(() => ({ status: 503, raw: BOMB }));
    const error = await client.rest.workloads.get('w').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnavailableError);
    expect((error as Error).message.length).toBeLessThan(500);
  });
});
