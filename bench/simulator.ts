import autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { SimulatorFixtures } from '../src/simulator/fixtures.js';
import { startSimulatorProcess } from '../test/testkit/simulator-kit.js';

/**
 * How fast the simulator serves `getWorkload`, and how much memory its inventory takes.
 *
 * The simulator runs as `paw sim` in a child process pinned to CPU 0 (`taskset`, when there is
 * one); autocannon runs in this process, pinned to CPU 1, so the load generator never competes
 * with what it measures. Faults and the rate limit are off. Memory is the simulator process's
 * resident set (VmRSS, and its peak VmHWM) from /proc, after start-up and after the load.
 */
export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      workloads: { type: 'string', default: '100000' },
      duration: { type: 'string', default: '20' },
      warmup: { type: 'string', default: '5' },
      connections: { type: 'string', default: '50' },
      json: { type: 'boolean', default: false },
    },
  });
  const workloads = Number(values.workloads);
  const duration = Number(values.duration);
  const connections = Number(values.connections);
  const pinned = hasTaskset() && cpus().length >= 2;
  const loadBefore = loadavg();

  const dir = await mkdtemp(join(tmpdir(), 'paw-bench-sim-'));
  const simulator = await startSimulatorProcess(
    dir,
    { workloads, rateLimit: { requestsPerSecond: 0 } },
    pinned ? { prefix: ['taskset', '-c', '0'] } : {},
  );
  if (pinned) execFileSync('taskset', ['-cp', '1', String(process.pid)], { stdio: 'ignore' });
  try {
    const { fixtures, pid } = simulator;
    const startupMemory = processMemory(pid);

    const token = await accessToken(fixtures);
    const ids = await sampleWorkloadIds(fixtures.baseUrl, token, 1000);
    const load = (seconds: number) =>
      getWorkloadLoad(fixtures.baseUrl, token, ids, seconds, connections);
    await load(Number(values.warmup));
    const result = await load(duration);
    const afterMemory = processMemory(pid);
    const loadAfter = loadavg();

    const report = {
      command: `npm run bench -- simulator ${args.join(' ')}`.trim(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', node: process.version },
      loadAverage: { before: loadBefore.map(round), after: loadAfter.map(round) },
      pinned: pinned
        ? 'simulator on CPU 0, autocannon on CPU 1 (taskset)'
        : 'not pinned (no taskset or one CPU)',
      workloads,
      getWorkload: {
        durationSeconds: duration,
        connections,
        requestsPerSecond: round(result.requests.average),
        latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
        total: result.requests.total,
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
      },
      memoryMB: {
        afterStartup: startupMemory,
        afterLoad: afterMemory,
      },
    };
    if (values.json) {
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    } else {
      process.stdout.write(
        [
          `simulator benchmark (${report.command})`,
          `  machine: ${report.machine.cpus} CPUs (${report.machine.model}), Node ${report.machine.node}`,
          `  load average before ${report.loadAverage.before.join(' ')}, after ${report.loadAverage.after.join(' ')}`,
          `  ${report.pinned}`,
          `  getWorkload over ${workloads} workloads: ${report.getWorkload.requestsPerSecond} requests/s ` +
            `(${connections} connections, ${duration} s; p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms; ` +
            `${result.non2xx} non-2xx, ${result.errors} errors)`,
          `  memory (RSS of the simulator process): ${startupMemory.rss} MB after start-up, ` +
            `${afterMemory.rss} MB after the load, peak ${afterMemory.peak} MB`,
          '',
        ].join('\n'),
      );
    }
    if (result.non2xx > 0 || result.errors > 0) process.exitCode = 1;
  } finally {
    await simulator.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

async function accessToken(fixtures: SimulatorFixtures): Promise<string> {
  const { client_id, client_secret } = fixtures.serviceAccounts.admin;
  const response = await fetch(`${fixtures.baseUrl}/api/client_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id, client_secret }),
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

async function sampleWorkloadIds(baseUrl: string, token: string, count: number): Promise<string[]> {
  const response = await fetch(`${baseUrl}/api/rest/workloads?first=${count}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await response.json()) as { data: { nodes: { id: string }[] } };
  return body.data.nodes.map((node) => node.id);
}

function getWorkloadLoad(
  baseUrl: string,
  token: string,
  ids: readonly string[],
  seconds: number,
  connections: number,
): Promise<autocannon.Result> {
  let next = 0;
  return autocannon({
    url: baseUrl,
    connections,
    duration: seconds,
    headers: { authorization: `Bearer ${token}` },
    requests: [
      {
        method: 'GET',
        setupRequest: (request) => ({
          ...request,
          path: `/api/rest/workloads/${ids[next++ % ids.length] ?? ''}`,
        }),
      },
    ],
  });
}

/** Resident memory of a process in MB, now and at its peak (Linux /proc). */
function processMemory(pid: number): { rss: number; peak: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) =>
      Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
    return { rss: round(field('VmRSS')), peak: round(field('VmHWM')) };
  } catch {
    return { rss: NaN, peak: NaN };
  }
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
