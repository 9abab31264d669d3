import { afterEach, describe, expect, it } from 'vitest';
import { loadSettings } from '../../../src/config/load-settings.js';
import { isRetryable } from '../../../src/platform/http/is-retryable.js';
import {
  NotFoundError,
  PermissionError,
  RateLimitedError,
  type PlatformError,
} from '../../../src/platform/http/platform-errors.js';
import {
  createPlatformClient,
  type PlatformClient,
} from '../../../src/platform/platform-client.js';
import { TokenBucketGate } from '../../../src/platform/rate-limit/token-bucket-gate.js';
import { captureLogs } from '../../testkit/log-capture.js';
import {
  clusterSla,
  globalSla,
  notFound,
  pauseStatusAnswer,
  refusedDocument,
  slaDomainsAnswer,
  startTinyGraphqlPlatform,
  withheldField,
  type GraphqlAnswer,
  type GraphqlCall,
  type TinyGraphqlPlatform,
} from './documented-answers.js';

const GOLD = '22222222-3333-4444-8555-666666666666';
const SILVER = '22222222-3333-4444-8555-777777777777';
const LOCAL = '22222222-3333-4444-8555-888888888888';
const CLUSTER = { id: '44444444-5555-4666-8777-888888888888', name: 'edge-1' };

/**
 * Each of the platform's documented GraphQL answer shapes, from an independent tiny platform on
 * 127.0.0.1, as paw's client reads it: a refused document (HTTP 200, the gateway's body), a field
 * withheld beside the rest of the data (403), not found (404), a bare 429, and cluster-local SLA
 * Domains listed beside global ones.
 */
describe("the platform's GraphQL answer shapes, from a tiny platform", () => {
  const platforms: TinyGraphqlPlatform[] = [];
  const clients: PlatformClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await Promise.all(platforms.splice(0).map((platform) => platform.close()));
  });

  async function platform(
    answer: (call: GraphqlCall) => GraphqlAnswer,
    options: { readonly gate?: TokenBucketGate } = {},
  ) {
    const tiny = await startTinyGraphqlPlatform(answer);
    platforms.push(tiny);
    const logs = captureLogs();
    const { settings } = await loadSettings({ env: tiny.env() });
    const client = await createPlatformClient({
      settings,
      logger: logs.logger,
      ...(options.gate === undefined ? {} : { requestGate: options.gate }),
    });
    clients.push(client);
    return { tiny, client, logs };
  }

  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => expect.fail('it succeeded'),
      (error: unknown) => error as PlatformError,
    );

  for (const status of [200, 400]) {
    it(`names the field of a document the platform refused (HTTP ${status}), once, not retried`, async () => {
      const { tiny, client } = await platform(() => ({
        status,
        body: refusedDocument(
          'protectedObjectCount',
          'GlobalSlaReply',
          " Did you mean 'protectedObjectCounts'?",
        ),
      }));
      const error = await failure(client.graphql.slaDomains.list().toArray());
      expect(error).toMatchObject({
        name: 'DocumentRefusedError',
        kind: 'invalid',
        code: 'DOCUMENT_REFUSED',
        operation: 'slaDomains',
        requestId: 'yQq0Pl2VftOESD4kCtiFdg==',
        mayHaveTakenEffect: false,
        refused: ['GlobalSlaReply.protectedObjectCount'],
        violations: [
          "Cannot query field 'protectedObjectCount' on type 'GlobalSlaReply'. Did you mean 'protectedObjectCounts'? (line 6, column 7)",
        ],
      });
      expect(error.message).toContain(
        "slaDomains: the platform refused paw's document, naming GlobalSlaReply.protectedObjectCount: Cannot query field 'protectedObjectCount' on type 'GlobalSlaReply'.",
      );
      expect(error.message).toMatch(/upgrade paw, or .*npm run schema:refresh.*paw doctor/);
      // The platform's echo of the request's variables stays out of paw's message.
      expect(error.message).not.toContain('variables');
      expect(isRetryable(error)).toBe(false);
      expect(tiny.calls).toHaveLength(1);
    });
  }

  it('uses the rest of an answer whose protectedObjectCount was withheld, warning with the field and why', async () => {
    const { client, logs } = await platform(() =>
      slaDomainsAnswer(
        [
          globalSla(GOLD, 'Gold', { protectedObjectCount: null }),
          globalSla(SILVER, 'Silver', { protectedObjectCount: null }),
          clusterSla(LOCAL, 'Edge Local', CLUSTER),
        ],
        [
          withheldField(['slaDomains', 'nodes', 0, 'protectedObjectCount']),
          withheldField(['slaDomains', 'nodes', 1, 'protectedObjectCount']),
        ],
      ),
    );
    const domains = await client.graphql.slaDomains.list().toArray();
    expect(
      domains.map((domain) => [domain.name, domain.protectedWorkloadCount, domain.description]),
    ).toEqual([
      ['Gold', null, 'Gold protection'],
      ['Silver', null, 'Silver protection'],
      ['Edge Local', 4, undefined],
    ]);
    const warning = logs.records().find((record) => record['withheld'] !== undefined);
    expect(warning).toMatchObject({
      level: 40,
      operation: 'slaDomains',
      withheld: [
        {
          field: 'GlobalSlaReply.protectedObjectCount',
          rows: 2,
          path: 'slaDomains.nodes[0].protectedObjectCount',
          reason: 'Account does not have the appropriate features enabled to access the field.',
        },
      ],
    });
    expect(warning?.['msg']).toBe(
      'the platform withheld GlobalSlaReply.protectedObjectCount (Account does not have the appropriate features enabled to access the field.) from its slaDomains answer: paw goes on without it',
    );
  });

  it('fails, naming the field, when what it withheld is a field paw cannot do without', async () => {
    const { client } = await platform(() =>
      slaDomainsAnswer(
        [globalSla(GOLD, 'Gold', { name: null })],
        [withheldField(['slaDomains', 'nodes', 0, 'name'])],
      ),
    );
    const error = await failure(client.graphql.slaDomains.list().toArray());
    expect(error).toBeInstanceOf(PermissionError);
    expect(error).toMatchObject({ status: 403, operation: 'slaDomains' });
    expect(error.message).toBe(
      'slaDomains: the platform withheld SlaDomain.name (at slaDomains.nodes[0].name), which paw ' +
        'cannot do without: Account does not have the appropriate features enabled to access ' +
        'the field. Enable the feature for the account, or give the service account a role that ' +
        'may read it (HTTP 403, code 403, request id 9v0wj/Sm9UVOdUFd1ottJQ==)',
    );
  });

  it('reads NOT_FOUND (data null, code 404) as not found, with the trace id to quote', async () => {
    const { client } = await platform((call) =>
      call.operationName === 'slaDomain' ? { body: notFound('slaDomain') } : undefined,
    );
    const error = await failure(client.graphql.slaDomains.get(GOLD));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({
      kind: 'not_found',
      status: 404,
      requestId: 'gwzt2HR5GinN4PrhQfJ+Bg==',
      platformMessage:
        'NOT_FOUND: Unable to find managed object for ID or you are not authorized to access it',
    });
    // Without a code, and with a path and trace paw cannot read: still not found.
    const odd = await platform(() => ({
      body: {
        data: null,
        errors: [
          {
            message: 'NOT_FOUND: no such SLA Domain',
            path: 'slaDomain',
            extensions: { trace: 'x' },
          },
        ],
      },
    }));
    expect(await failure(odd.client.graphql.slaDomains.get(GOLD))).toBeInstanceOf(NotFoundError);
  });

  it('takes a bare 429 (no body, no Retry-After) as rate-limited and slows the gate', async () => {
    const gate = new TokenBucketGate({ requestsPerSecond: 40 });
    const { tiny, client } = await platform(() => ({ status: 429 }), { gate });
    const error = await failure(client.graphql.slaDomains.list().toArray());
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ status: 429, mayHaveTakenEffect: false });
    // Retried as any 429, each one told to the gate, which slowed down.
    expect(tiny.calls.length).toBeGreaterThan(1);
    expect(gate.currentRate()).toBeLessThan(40);
  });

  it('lists cluster-local SLA Domains beside global ones, and reads, pauses and resumes one on its cluster', async () => {
    let paused = false;
    const pauses: unknown[] = [];
    const { tiny, client } = await platform((call) => {
      switch (call.operationName) {
        case 'slaDomains':
          return slaDomainsAnswer([
            globalSla(GOLD, 'Gold'),
            clusterSla(LOCAL, 'Edge Local', CLUSTER),
          ]);
        case 'slaDomain':
          return { body: { data: { slaDomain: clusterSla(LOCAL, 'Edge Local', CLUSTER) } } };
        case 'globalSlaStatuses':
          return pauseStatusAnswer(CLUSTER, paused ? 'PAUSED' : 'NOT_PAUSED');
        case 'pauseSla':
          pauses.push(call.variables['input']);
          paused = (call.variables['input'] as { pauseSla: boolean }).pauseSla;
          return { body: { data: { pauseSla: { success: true } } } };
        default:
          return undefined;
      }
    });
    const listed = await client.graphql.slaDomains.list().toArray();
    expect(listed.map((domain) => [domain.name, domain.localTo])).toEqual([
      ['Gold', undefined],
      ['Edge Local', { clusterId: CLUSTER.id, clusterName: 'edge-1' }],
    ]);
    expect(listed[1]?.protectedWorkloadCount).toBe(4);
    // The document asks each implementation for its own fields (the schema allows no other way).
    expect(tiny.calls[0]?.query).toMatch(/\.\.\. on ClusterSlaDomain \{\s+protectedObjectCount/);

    const local = await client.graphql.slaDomains.get(LOCAL);
    expect(local.clusters).toEqual([
      {
        clusterId: CLUSTER.id,
        clusterName: 'edge-1',
        pauseStatus: 'NOT_PAUSED',
        pause: undefined,
      },
    ]);
    expect((await client.graphql.slaDomains.pause(LOCAL)).clusters?.[0]?.pauseStatus).toBe(
      'PAUSED',
    );
    expect((await client.graphql.slaDomains.resume(LOCAL)).clusters?.[0]?.pauseStatus).toBe(
      'NOT_PAUSED',
    );
    expect(pauses).toEqual([
      { slaId: LOCAL, clusterUuids: [CLUSTER.id], pauseSla: true },
      { slaId: LOCAL, clusterUuids: [CLUSTER.id], pauseSla: false },
    ]);
  });
});
