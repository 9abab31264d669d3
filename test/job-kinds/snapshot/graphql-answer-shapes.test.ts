import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../testkit/eventually.js';
import { startWorkerTestKit, type WorkerTestKit } from '../../testkit/worker-kit.js';
import {
  PAGE_INFO,
  clusterSla,
  notFound,
  refusedDocument,
  slaDomainsAnswer,
  startTinyGraphqlPlatform,
  type GraphqlAnswer,
  type GraphqlCall,
  type TinyGraphqlPlatform,
} from '../../platform/graphql/documented-answers.js';

const LOCAL = '22222222-3333-4444-8555-888888888888';
const CLUSTER = { id: '44444444-5555-4666-8777-888888888888', name: 'edge-1' };
const VM = { id: 'vm-1', fid: '55555555-6666-4777-8888-999999999999', name: 'edge-vm' };

/**
 * A snapshot run, in a worker in this process, against an independent tiny platform answering
 * GraphQL as the platform documents: what a refused document leaves in the run's record, and a
 * retention SLA Domain that is cluster-local.
 */
describe('a snapshot run through GraphQL, against the documented answer shapes', () => {
  let kit: WorkerTestKit;
  const platforms: TinyGraphqlPlatform[] = [];
  beforeAll(async () => {
    kit = await startWorkerTestKit({ workloads: 1 }, 'shapes');
  });
  afterEach(async () => {
    await Promise.all(platforms.splice(0).map((platform) => platform.close()));
  });
  afterAll(() => kit.close());

  /** A worker whose platform is the tiny one, through GraphQL. */
  async function workerOn(answer: (call: GraphqlCall) => GraphqlAnswer) {
    const platform = await startTinyGraphqlPlatform(answer);
    platforms.push(platform);
    const worker = await kit.startInProcessWorker({
      platform: { credentialsFile: await platform.credentialsFile(kit.dir), api: 'graphql' },
    });
    return { platform, worker };
  }

  it("records the refused document's field and the fix as the run's error, once", async () => {
    const { platform, worker } = await workerOn((call) =>
      call.operationName === 'slaDomains'
        ? {
            body: refusedDocument(
              'description',
              'SlaDomain',
              " Did you mean to use an inline fragment on 'GlobalSlaReply'?",
            ),
          }
        : { body: notFound(call.operationName) },
    );
    try {
      const runId = await kit.fire({
        id: 'refused',
        kind: 'snapshot',
        schedule: { cron: '0 1 * * *' },
        targets: { types: ['VSPHERE_VM'] },
        retention: { slaDomainName: 'Gold' },
      });
      const run = await kit.waitForRun(runId);
      expect(run).toMatchObject({ status: 'failed', errorCode: 'DOCUMENT_REFUSED', attempts: 1 });
      expect(run.errorMessage).toContain(
        "slaDomains: the platform refused paw's document, naming SlaDomain.description: Cannot " +
          "query field 'description' on type 'SlaDomain'. Did you mean to use an inline fragment " +
          "on 'GlobalSlaReply'? (line 6, column 7)",
      );
      expect(run.errorMessage).toContain('npm run schema:refresh');
      expect(platform.calls.filter((call) => call.operationName === 'slaDomains')).toHaveLength(1);
    } finally {
      await worker.stop();
    }
  });

  it('retains snapshots by a cluster-local SLA Domain named in the definition', async () => {
    const { platform, worker } = await workerOn((call) => {
      switch (call.operationName) {
        case 'slaDomains':
          return slaDomainsAnswer([clusterSla(LOCAL, 'Edge', CLUSTER)]);
        case 'snappableConnection':
          return {
            body: {
              data: {
                snappableConnection: {
                  count: 1,
                  nodes: [
                    {
                      ...VM,
                      objectType: 'VmwareVirtualMachine',
                      cluster: CLUSTER,
                      slaDomain: { id: LOCAL, name: 'Edge' },
                    },
                  ],
                  pageInfo: PAGE_INFO,
                },
              },
            },
          };
        default:
          return { body: notFound(call.operationName) };
      }
    });
    try {
      await kit.fire({
        id: 'edge',
        kind: 'snapshot',
        schedule: { cron: '0 1 * * *' },
        targets: { types: ['VSPHERE_VM'] },
        retention: { slaDomainName: 'Edge' },
      });
      const trigger = await eventually('the snapshot trigger', () =>
        platform.calls.find((call) => call.operationName === 'vsphereOnDemandSnapshot'),
      );
      expect(trigger.variables['input']).toMatchObject({
        id: VM.fid,
        config: { slaId: LOCAL },
      });
    } finally {
      await worker.stop();
    }
  });
});
