// Answers of every shape the published schema allows come back: `any` is the honest type.
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment */
import { print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishedSchema } from '../../../src/platform/graphql/schema/platform-schema.js';
import { eventually } from '../../testkit/eventually.js';
import { startTestSimulator, type TestSimulator } from '../simulator-fixture.js';
import { operationsOf, readCorpus, variablesFor, type CorpusDocument } from './corpus-documents.js';

/** Field errors a document may meet with made-up variables: an argument refused, not found. */
const EXPECTED_CODES = new Set([400, 404]);

/** How many requests are in flight at once: enough to keep the test short, not a load test. */
const CONCURRENCY = 8;

/** The answer that names the ids of the simulator's world the corpus's variables are given. */
interface WorldIds {
  vSphereVmNew: { cluster: { id: string }; newestSnapshot: { id: string } | null };
  activitySeriesConnection: { nodes: { activitySeriesId: string }[] };
  serviceAccounts: { nodes: { roles: { id: string }[] }[] };
}

/** The corpus's folder of roots outside the simulator's world: they answer as an empty account. */
const OUTSIDE = 'outside';

/** Every list in an answer, and every `count`, found anywhere in it: an empty account's are empty. */
function contentOf(value: unknown): number {
  if (Array.isArray(value)) {
    return (value as unknown[]).reduce<number>((sum, item) => sum + contentOf(item), value.length);
  }
  if (value === null || typeof value !== 'object') return 0;
  return Object.entries(value as Record<string, unknown>).reduce<number>(
    (sum, [key, item]) =>
      sum + (key === 'count' && typeof item === 'number' ? item : contentOf(item)),
    0,
  );
}

/**
 * The corpus (test/simulator/graphql-corpus/README.md: documents written for this project in the
 * shape the platform's real clients send, one folder per area), each validated against the
 * published schema, and every one sent to one simulator over HTTP with its required variables
 * made up: each is understood (a GraphQL result, never the gateway's refusal) and answered without
 * an error the simulator did not mean (a 500, a null where the schema forbids one, an unresolved
 * type); those of roots outside the simulator's world answer as an empty account.
 */
describe('GraphQL: a corpus of client documents', () => {
  let t: TestSimulator;
  let corpus: CorpusDocument[];
  /** Ids of the simulator's world, by the variable names the corpus gives them. */
  let known: Record<string, unknown>;
  /** Operations sent, and the field errors answered by code (for the summary line). */
  let sent = 0;
  const errorCodes = new Map<string, number>();

  const post = async (query: string, variables: Record<string, unknown> = {}) => {
    // A fresh token each time: at timeScale 3000 one lives 14 s of real time.
    const token = await t.token('admin');
    return t.api('POST', '/api/graphql', { token, json: { query, variables } });
  };

  beforeAll(async () => {
    corpus = readCorpus(publishedSchema());
    t = await startTestSimulator({
      workloads: 20,
      timeScale: 3000,
      jobs: { failureRate: 0, cancelRate: 0 },
    });
    // One snapshot taken and finished first, so the documents that follow a snapshot, a request
    // and an activity series reach real ones (and their deep selections are answered).
    const vm = t.fixtures.workloads.samples.vsphereVm ?? '';
    const gold = t.fixtures.slaDomains.find((sla) => sla.name === 'Gold')?.id ?? '';
    const taken = await post(
      'mutation($vm: String!, $sla: String) { vsphereOnDemandSnapshot(input: { id: $vm, config: { slaId: $sla } }) { id } }',
      { vm, sla: gold },
    );
    const requestId: string = taken.body.data.vsphereOnDemandSnapshot.id;
    const world = await eventually('the on-demand snapshot to be listed', async () => {
      const answer = await post(
        `
          query ($vm: UUID!, $fids: [UUID!]) {
            vSphereVmNew(fid: $vm) {
              cluster {
                id
              }
              newestSnapshot {
                id
              }
            }
            activitySeriesConnection(first: 1, filters: { objectFid: $fids }) {
              nodes {
                activitySeriesId
              }
            }
            serviceAccounts {
              nodes {
                roles {
                  id
                }
              }
            }
          }
        `,
        { vm, fids: [vm] },
      );
      const data = answer.body.data as WorldIds;
      return data.vSphereVmNew.newestSnapshot === null ? undefined : data;
    });
    const clusterId: string = world.vSphereVmNew.cluster.id;
    known = {
      vmId: vm,
      vmIds: [vm],
      workloadId: vm,
      workloadIds: [vm],
      objectFid: vm,
      fids: [vm],
      objectIds: [vm],
      databaseId: t.fixtures.workloads.samples.mssqlDatabase,
      slaId: gold,
      clusterId,
      clusterIds: [clusterId],
      snapshotId: world.vSphereVmNew.newestSnapshot?.id,
      seriesId: world.activitySeriesConnection.nodes[0]?.activitySeriesId,
      requestId,
      roleIds: [world.serviceAccounts.nodes[0]?.roles[0]?.id],
    };
  });
  afterAll(() => t.close());

  /** What is wrong with the answers to one document's operations, or nothing. */
  async function problemsOf(entry: CorpusDocument): Promise<string[]> {
    // Only a valid document is sent; the test below fails first if one is not.
    const document = entry.document;
    if (document === undefined) return [];
    const query = print(document);
    const problems: string[] = [];
    for (const operation of operationsOf(document)) {
      sent++;
      const response = await t.api('POST', '/api/graphql', {
        token: await t.token('admin'),
        json: {
          query,
          operationName: operation.name?.value,
          variables: variablesFor(publishedSchema(), operation, known),
        },
      });
      const body = response.body;
      if (response.status !== 200 || body?.code !== undefined || !('data' in body)) {
        problems.push(`HTTP ${response.status}: ${String(body?.message ?? response.text)}`);
        continue;
      }
      for (const error of body.errors ?? []) {
        const code = String(error.extensions?.code);
        errorCodes.set(code, (errorCodes.get(code) ?? 0) + 1);
        if (!EXPECTED_CODES.has(Number(error.extensions?.code))) {
          problems.push(`${JSON.stringify(error.path)} ${String(error.message)}`);
        }
      }
      if (entry.area === OUTSIDE && contentOf(body.data) > 0) {
        problems.push(`not an empty account's answer: ${JSON.stringify(body.data)}`);
      }
    }
    return problems;
  }

  it('understands every valid document, and answers each without an unexpected error', async () => {
    const areas = new Set(corpus.map((entry) => entry.area));
    const valid = corpus.filter((entry) => entry.document !== undefined);
    // The corpus is there (a move would empty it), and every document in it is valid against
    // the published schema: one that is not names its problem here.
    expect(areas.size).toBeGreaterThanOrEqual(10);
    expect(areas).toContain(OUTSIDE);
    expect(corpus.length).toBeGreaterThanOrEqual(80);
    expect(
      corpus.filter((entry) => entry.problem !== undefined).map((e) => `${e.path}: ${e.problem}`),
    ).toEqual([]);
    expect(valid.length).toBe(corpus.length);

    const failures: string[] = [];
    const queue = [...valid];
    const worker = async () => {
      for (let entry = queue.shift(); entry !== undefined; entry = queue.shift()) {
        const problems = await problemsOf(entry);
        if (problems.length > 0) failures.push(`${entry.path}: ${problems.join(' | ')}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const understood = valid.length - failures.length;
    // The figures the issue asks for, in the test's output.
    console.info(
      `graphql corpus: ${corpus.length} documents in ${areas.size} areas, ${valid.length} valid ` +
        `against the published schema, ${understood} understood (${((100 * understood) / valid.length).toFixed(1)}%); ` +
        `${sent} operations sent; field errors by code: ${JSON.stringify(Object.fromEntries(errorCodes))}`,
    );
    expect(failures.sort()).toEqual([]);
  });
});
