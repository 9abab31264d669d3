import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { startSimulatorProcess } from '../test/testkit/simulator-kit.js';

/**
 * `paw sim` with the platform's whole published schema: how long it takes to start (spawned
 * until it prints its fixtures, the whole schema built), how long a typical list takes to answer
 * (sequential requests, one at a time, after a warm-up), and what building the whole schema costs
 * a process (the cost each test file that sends more than paw's own documents pays once).
 */

const LISTS: Record<string, string> = {
  vSphereVmNewConnection: `query { vSphereVmNewConnection(first: 50) { count nodes {
    id name cluster { id name } effectiveSlaDomain { id name } slaAssignment
    newestSnapshot { id date } guestOsName powerStatus } pageInfo { endCursor hasNextPage } } }`,
  snappableConnection: `query { snappableConnection(first: 50) { count nodes {
    id fid name objectType cluster { id name } slaDomain { id name } protectionStatus complianceStatus
  } pageInfo { endCursor hasNextPage } } }`,
  slaDomains: `query { slaDomains(first: 50) { count nodes { id name
    ... on GlobalSlaReply { description objectTypes isRetentionLockedSla snapshotSchedule {
      daily { basicSchedule { frequency retention retentionUnit } } } } } } }`,
};

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

const round = (value: number) => Math.round(value * 10) / 10;

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      workloads: { type: 'string', default: '2000' },
      requests: { type: 'string', default: '200' },
      json: { type: 'boolean', default: false },
    },
  });
  const workloads = Number(values.workloads);
  const requests = Number(values.requests);
  const loadBefore = loadavg();

  // In this process: what building the whole schema costs (paw's part is built with it here).
  const { publishedSchema } = await import('../src/platform/graphql/schema/platform-schema.js');
  const buildStart = performance.now();
  publishedSchema();
  const buildMs = performance.now() - buildStart;

  const dir = await mkdtemp(join(tmpdir(), 'paw-bench-graphql-'));
  const startAt = performance.now();
  const simulator = await startSimulatorProcess(dir, {
    workloads,
    rateLimit: { requestsPerSecond: 0 },
  });
  const startupMs = performance.now() - startAt;
  try {
    const { baseUrl, serviceAccounts } = simulator.fixtures;
    const tokenAnswer = await fetch(`${baseUrl}/api/client_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_id: serviceAccounts.admin.client_id,
        client_secret: serviceAccounts.admin.client_secret,
      }),
    });
    const { access_token: token } = (await tokenAnswer.json()) as { access_token: string };
    const send = async (query: string): Promise<number> => {
      const at = performance.now();
      const response = await fetch(`${baseUrl}/api/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query }),
      });
      const body = (await response.json()) as { data?: unknown; errors?: unknown[] };
      if (response.status !== 200 || body.data == null || body.errors !== undefined) {
        throw new Error(`unexpected answer: ${JSON.stringify(body).slice(0, 300)}`);
      }
      return performance.now() - at;
    };
    const lists: Record<string, { p50: number; p99: number; max: number }> = {};
    for (const [name, query] of Object.entries(LISTS)) {
      for (let i = 0; i < 20; i++) await send(query);
      const times: number[] = [];
      for (let i = 0; i < requests; i++) times.push(await send(query));
      times.sort((a, b) => a - b);
      lists[name] = {
        p50: round(percentile(times, 50)),
        p99: round(percentile(times, 99)),
        max: round(times.at(-1) ?? 0),
      };
    }
    const report = {
      command: `npm run bench -- graphql ${args.join(' ')}`.trim(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', node: process.version },
      loadAverage: { before: loadBefore.map(round), after: loadavg().map(round) },
      workloads,
      wholeSchemaBuildMs: round(buildMs),
      startupMs: round(startupMs),
      listLatencyMs: lists,
      goals: { startupMs: 3000, listP50Ms: 50 },
    };
    if (values.json) {
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    } else {
      process.stdout.write(
        [
          `graphql benchmark (${report.command})`,
          `  machine: ${report.machine.cpus} CPUs (${report.machine.model}), Node ${report.machine.node}`,
          `  load average before ${report.loadAverage.before.join(' ')}, after ${report.loadAverage.after.join(' ')}`,
          `  building the whole published schema in a process: ${report.wholeSchemaBuildMs} ms`,
          `  paw sim (${workloads} workloads) ready in ${report.startupMs} ms (goal: under 3000 ms)`,
          ...Object.entries(lists).map(
            ([name, figures]) =>
              `  ${name} (first: 50), ${requests} requests one at a time: p50 ${figures.p50} ms, ` +
              `p99 ${figures.p99} ms, max ${figures.max} ms (goal: p50 under 50 ms)`,
          ),
          '',
        ].join('\n'),
      );
    }
    const slow = Object.values(lists).some((figures) => figures.p50 >= 50);
    if (startupMs >= 3000 || slow) process.exitCode = 1;
  } finally {
    await simulator.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
