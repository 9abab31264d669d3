import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runPaw } from '../../testkit/paw-process.js';
import {
  clusterSla,
  globalSla,
  pauseStatusAnswer,
  refusedDocument,
  slaDomainsAnswer,
  startTinyGraphqlPlatform,
  withheldField,
  type GraphqlAnswer,
  type GraphqlCall,
  type TinyGraphqlPlatform,
} from '../../platform/graphql/documented-answers.js';

const GOLD = '22222222-3333-4444-8555-666666666666';
const LOCAL = '22222222-3333-4444-8555-888888888888';
const CLUSTER = { id: '44444444-5555-4666-8777-888888888888', name: 'edge-1' };

/**
 * `paw sla list|get` through GraphQL against an independent tiny platform answering as the
 * platform documents: what the user sees of a refused document, of a field withheld beside the
 * data, and of cluster-local SLA Domains.
 */
describe('paw sla through GraphQL, against the documented answer shapes', () => {
  let dir: string;
  const platforms: TinyGraphqlPlatform[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paw-sla-shapes-'));
  });
  afterEach(async () => {
    await Promise.all(platforms.splice(0).map((platform) => platform.close()));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  async function paw(args: readonly string[], answer: (call: GraphqlCall) => GraphqlAnswer) {
    const platform = await startTinyGraphqlPlatform(answer);
    platforms.push(platform);
    return runPaw(args, { cwd: dir, env: platform.env() });
  }

  it('a refused document: exit 1, naming the field, the platform sentence and the fix', async () => {
    const result = await paw(['sla', 'list'], () => ({
      body: refusedDocument(
        'protectedObjectCount',
        'GlobalSlaReply',
        " Did you mean 'protectedObjectCounts'?",
      ),
    }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "paw: slaDomains: the platform refused paw's document, naming GlobalSlaReply.protectedObjectCount: " +
        "Cannot query field 'protectedObjectCount' on type 'GlobalSlaReply'. Did you mean " +
        "'protectedObjectCounts'? (line 6, column 7) (HTTP 400, code DOCUMENT_REFUSED, request id yQq0Pl2VftOESD4kCtiFdg==). " +
        "The account's GraphQL schema differs from the one this paw was built against: upgrade paw",
    );
    expect(result.stderr).toContain('npm run schema:refresh');
    expect(result.stderr).not.toContain('unusable response');
  });

  it('protectedObjectCount withheld: the list, with a warning naming the field and why', async () => {
    const result = await paw(['sla', 'list'], () =>
      slaDomainsAnswer(
        [
          globalSla(GOLD, 'Gold', { protectedObjectCount: null }),
          clusterSla(LOCAL, 'Edge', CLUSTER),
        ],
        [withheldField(['slaDomains', 'nodes', 0, 'protectedObjectCount'])],
      ),
    );
    expect(result.code, result.stderr).toBe(0);
    const rows = result.stdout.trim().split('\n');
    expect(rows[0]).toMatch(
      /^ID\s+NAME\s+FREQUENCY\s+RETENTION\s+WORKLOADS\s+PAUSED ON\s+LOCAL TO$/,
    );
    expect(rows[1]).toMatch(new RegExp(`^${GOLD}\\s+Gold\\s+-\\s+-\\s+-\\s+none\\s+-$`));
    expect(rows[2]).toMatch(new RegExp(`^${LOCAL}\\s+Edge\\s+-\\s+-\\s+4\\s+none\\s+edge-1$`));
    expect(result.stderr).toContain(
      'the platform withheld GlobalSlaReply.protectedObjectCount (Account does not have the appropriate features enabled to access the field.) from its slaDomains answer: paw goes on without it',
    );
  });

  it('a field paw cannot do without withheld: exit 1, naming it', async () => {
    const result = await paw(['sla', 'list'], () =>
      slaDomainsAnswer(
        [globalSla(GOLD, 'Gold', { name: null })],
        [withheldField(['slaDomains', 'nodes', 0, 'name'])],
      ),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^paw: slaDomains: the platform withheld SlaDomain\.name \(at slaDomains\.nodes\[0\]\.name\), which paw cannot do without: Account does not have the appropriate features enabled/m,
    );
  });

  it('a cluster-local SLA Domain: shown with the cluster it lives on and its pause state there', async () => {
    const result = await paw(['sla', 'get', LOCAL], (call) =>
      call.operationName === 'slaDomain'
        ? { body: { data: { slaDomain: clusterSla(LOCAL, 'Edge', CLUSTER) } } }
        : pauseStatusAnswer(CLUSTER, 'NOT_PAUSED'),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(`^local to:\\s+cluster edge-1 \\(${CLUSTER.id}\\)$`, 'm'),
    );
    expect(result.stdout).toMatch(/^workloads:\s+4$/m);
    expect(result.stdout).toMatch(new RegExp(`^${CLUSTER.id}\\s+edge-1\\s+NOT_PAUSED`, 'm'));
  });
});
