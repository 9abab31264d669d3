import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runPaw } from '../../testkit/paw-process.js';
import { json } from '../cli-simulator.js';
import {
  clusterSla,
  notFound,
  pauseStatusAnswer,
  slaDomainsAnswer,
  startTinyGraphqlPlatform,
  type GraphqlAnswer,
  type GraphqlCall,
  type TinyGraphqlPlatform,
} from '../../platform/graphql/documented-answers.js';

interface DoctorJson {
  ok: boolean;
  checks: { id: string; status: string; detail: string; fix?: string; blocks: boolean }[];
}

const LOCAL = '22222222-3333-4444-8555-888888888888';
const CLUSTER = { id: '44444444-5555-4666-8777-888888888888', name: 'edge-1' };

/** The platform's refusal of a document it will not run: introspection, or a field it lacks. */
function refusal(violation: string): GraphqlAnswer {
  return {
    body: {
      code: 400,
      uri: '/api/graphql',
      traceSpan: { traceId: 'dGVzdA==', operation: '/api/graphql', spanId: 'c3Bhbg==' },
      message: `[QueryAnalysisError] Encountered Client error (400) executing query with operations: [] and variables {}. Error: ${violation}`,
    },
  };
}

/**
 * `paw doctor` against an independent tiny platform answering as the platform documents: one
 * that answers no introspection and refuses paw's documents naming a field, and one whose SLA
 * Domain is cluster-local.
 */
describe('paw doctor, against the documented answer shapes', () => {
  let dir: string;
  const platforms: TinyGraphqlPlatform[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paw-doctor-shapes-'));
  });
  afterEach(async () => {
    await Promise.all(platforms.splice(0).map((platform) => platform.close()));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  async function doctor(args: readonly string[], answer: (call: GraphqlCall) => GraphqlAnswer) {
    const platform = await startTinyGraphqlPlatform(answer);
    platforms.push(platform);
    const result = await runPaw(['doctor', '--json', ...args], { cwd: dir, env: platform.env() });
    return { result, report: json<DoctorJson>(result), platform };
  }
  const byId = (report: DoctorJson, id: string) => report.checks.find((entry) => entry.id === id);

  it('asks the platform about each document when it answers no introspection, and names the refused field', async () => {
    const { result, report, platform } = await doctor([], (call) => {
      if (call.operationName === 'IntrospectionQuery') {
        return refusal('Introspection is not allowed.');
      }
      if (call.operationName === 'doctorProbeActivity') {
        return refusal(
          "Query does not pass validation. Violations:\n\nCannot query field 'count' on type 'ActivitySeriesConnection'. (line 3, column 5):\n    count\n    ^",
        );
      }
      if (call.query.includes('protectedObjectCount')) {
        return refusal(
          "Query does not pass validation. Violations:\n\nCannot query field 'protectedObjectCount' on type 'GlobalSlaReply'. (line 12, column 7):\n      protectedObjectCount\n      ^",
        );
      }
      // Every other document about an object that does not exist finds nothing.
      return { body: notFound(call.operationName) };
    });
    expect(result.code, result.stderr).toBe(1);
    expect(byId(report, 'graphql.schema')).toMatchObject({ status: 'warn' });
    for (const kind of ['snapshot', 'sla-window']) {
      const found = byId(report, `graphql.schema.${kind}`);
      expect(found, kind).toMatchObject({ status: 'fail', blocks: true });
      expect(found?.detail).toContain(
        "slaDomains: Cannot query field 'protectedObjectCount' on type 'GlobalSlaReply'. (line 12, column 7)",
      );
      expect(found?.detail).toContain(
        "slaDomain: Cannot query field 'protectedObjectCount' on type 'GlobalSlaReply'.",
      );
      expect(found?.fix).toMatch(/npm run schema:refresh/);
    }
    expect(byId(report, 'graphql.schema.rotate-secret')).toMatchObject({ status: 'ok' });
    // A probe refused for a field of its answer is the schema moving, not a missing permission.
    const probes = byId(report, 'graphql.snapshot');
    expect(probes).toMatchObject({ status: 'fail' });
    expect(probes?.detail).toContain(
      "activitySeriesConnection: the platform refused paw's document, naming ActivitySeriesConnection.count: Cannot query field 'count'",
    );
    expect(probes?.fix).toMatch(/^no role fixes it: upgrade paw/);
    // Each mutation was asked about an object that does not exist, with nothing of the caller's.
    const pause = platform.calls.find((call) => call.operationName === 'pauseSla');
    expect(pause?.variables).toEqual({
      input: {
        clusterUuids: ['00000000-0000-4000-8000-000000000000'],
        pauseSla: false,
        slaId: '00000000-0000-4000-8000-000000000000',
      },
    });
  });

  it('takes a cluster-local retention SLA Domain, which does not say which types it protects', async () => {
    const jobs = join(dir, 'definitions');
    await mkdir(jobs, { recursive: true });
    await writeFile(
      join(jobs, 'defs.yaml'),
      'id: edge\nkind: snapshot\nschedule: { cron: "0 1 * * *" }\ntargets: { types: [VSPHERE_VM] }\nretention: { slaDomainName: Edge }',
    );
    const { report } = await doctor(['--jobs', jobs], (call) => {
      if (call.operationName === 'slaDomains') {
        return slaDomainsAnswer([clusterSla(LOCAL, 'Edge', CLUSTER)]);
      }
      if (call.operationName === 'slaDomain' && call.variables['id'] === LOCAL) {
        return { body: { data: { slaDomain: clusterSla(LOCAL, 'Edge', CLUSTER) } } };
      }
      if (call.operationName === 'globalSlaStatuses' && call.variables['slaId'] === LOCAL) {
        return pauseStatusAnswer(CLUSTER, 'NOT_PAUSED');
      }
      return { body: notFound(call.operationName) };
    });
    expect(byId(report, 'definition.edge')).toMatchObject({
      status: 'ok',
      detail: 'what it names exists on the platform',
    });
  });
});
