import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  compiledPaw,
  sourcePaw,
  withCpuProfiles,
  withHeap,
  type PawCommand,
} from './nightly/compiled-paw.js';
import { ContenderCrashedError, type ContenderResult } from './nightly/contender-result.js';
import { LOWER_BOUND_FORMULA, type LowerBound } from './nightly/lower-bound.js';
import {
  BASE_REQUESTS_PER_SECOND,
  FAST_LATENCY,
  nightInventory,
  nightSettings,
  type NightLatency,
  pawNightEnvironment,
  simulatorOptions,
} from './nightly/night-simulator-settings.js';
import { reportJson, reportText, type NightlyReport } from './nightly/nightly-report.js';
import { pawTargets } from './nightly/nightly-targets.js';
import type { HeapChoice } from './nightly/pod-heap.js';
import { runPawContender } from './nightly/paw-contender.js';
import { processUsage } from './nightly/process-usage.js';
import { Progress } from './nightly/progress.js';
import { scalingJson, scalingText } from './nightly/scaling-report.js';
import { runScriptContender } from './nightly/script-contender.js';
import { startSimulatorProcess } from '../test/testkit/simulator-kit.js';
import { machineSpeedMs } from './support/machine-speed.js';

const CONTENDERS = ['paw', 'sequential', 'concurrent'] as const;
type ContenderName = (typeof CONTENDERS)[number];

const HELP = `usage: npm run bench -- nightly [options]

A night of on-demand snapshots against the simulator (its own process), one contender after
another on the same settings: (a) paw (paw start + paw worker processes, a private redis-server,
fired with paw run); (b) the sequential script (one snapshot at a time, polled every 5 s of
platform time); (c) the concurrent script (10 at a time). Prints makespan, ×lower bound,
requests per snapshot, 429s, statuses, CPU and peak memory per contender, and paw's targets.

After paw's night, while its processes and Redis are up, it also times paw outcomes --export of
the run (the compiled paw as a process) and the dashboard's GET /api/runs and /api/runs/<run>.

options:
  --quick                 N = 1,000 (and smaller script samples): about 3 minutes
  --snapshots N           snapshots in the night (default 10000)
  --rate R                the platform's rate limit, requests/s (default 50; at most 1000, paw's
                          own limit); its burst (R) and each cluster's snapshot slots (32 × R / 50)
                          scale with it, and paw's request gate (PAW_PLATFORM_RPS) follows it.
                          The headroom night: --snapshots 100000 --rate 500 --only paw
  --latency MS|MIN-MAX    every request's latency on the platform, real ms (default 20): one
                          value, or a range drawn uniformly (the real platform's: 300-2500); the
                          lower bound counts its shortest
  --sizes LIST            the scaling report: one night per size (e.g. 1000,10000,100000), paw only
                          unless --only says otherwise, each night's report, then one table of how
                          each figure grows with N (instead of --snapshots and --quick)
  --time-scale X          platform time runs X times faster (default 20)
  --workers N             paw worker processes, paw start included (default 3)
  --sequential-sample N   workloads the sequential script runs, extrapolated to N (default 20, quick 8)
  --concurrent-sample N   workloads the concurrent script runs, extrapolated to N (default 200, quick 80)
  --paw-from WHAT         compiled (default: tsc into a temporary folder, run with node, as the
                          container image does) or source (src/cli/main.ts through tsx)
  --only LIST             comma-separated contenders to run (paw,sequential,concurrent; default
                          all three, or paw with --sizes)
  --cpu-prof DIR          write a V8 CPU profile of every paw process into DIR (node --cpu-prof);
                          open them in Chrome DevTools or speedscope
  --heap pod|host         the V8 heap of each paw process: pod (default) the one Node gives it in
                          its pod (deploy/kubernetes/worker.yaml's memory limit: 512 MiB, an old
                          generation of 256 MB), host the one it gets on this machine (up to 4 GB,
                          which V8 fills with garbage before it collects); bench/nightly/pod-heap.ts
  --stored-nights K       the night runs on top of an outcome store already holding K nights of
                          N items of another definition (recorded through paw's recording path and
                          packed as paw's scheduler packs them), as after K nights in production:
                          --stored-nights 90 is the issue's full store (default 0)
  --logs DIR              keep each paw process's log (at PAW_LOG_LEVEL, warn by default) in
                          DIR/<process>-<N>.log, to find out what a slow night did
  --json FILE             also write the figures as JSON to FILE (with --sizes: every night's,
                          and the scaling table's)
  --markdown              print the table as markdown
  --help                  this help

exit codes: 0 the benchmark completed (missed targets are reported, not failed); 1 a contender
crashed; 2 bad usage.
`;

interface NightlyOptions {
  pawFrom: 'compiled' | 'source';
  cpuProfileDir: string | undefined;
  /** Where each paw process's log goes (its standard error), one file per process and night. */
  logsDir: string | undefined;
  heap: HeapChoice;
  /** Nights of N items already stored when the night runs. */
  storedNights: number;
  snapshots: number;
  /** One night per size (the scaling report), instead of one of `snapshots`. */
  sizes: readonly number[] | undefined;
  rate: number;
  latency: NightLatency;
  timeScale: number;
  workers: number;
  sequentialSample: number;
  concurrentSample: number;
  only: readonly ContenderName[];
  json: string | undefined;
  markdown: boolean;
}

class UsageError extends Error {}

function parseOptions(args: string[]): NightlyOptions | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        quick: { type: 'boolean', default: false },
        snapshots: { type: 'string' },
        sizes: { type: 'string' },
        rate: { type: 'string', default: String(BASE_REQUESTS_PER_SECOND) },
        latency: { type: 'string', default: String(FAST_LATENCY.minMs) },
        'time-scale': { type: 'string', default: '20' },
        workers: { type: 'string', default: '3' },
        'sequential-sample': { type: 'string' },
        'concurrent-sample': { type: 'string' },
        only: { type: 'string' },
        'paw-from': { type: 'string', default: 'compiled' },
        'cpu-prof': { type: 'string' },
        logs: { type: 'string' },
        heap: { type: 'string', default: 'pod' },
        'stored-nights': { type: 'string', default: '0' },
        json: { type: 'string' },
        markdown: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    }).values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (parsed.help) return 'help';
  const quick = parsed.quick;
  const positive = (flag: string, text: string | undefined, fallback: number): number => {
    const value = text === undefined ? fallback : Number(text);
    if (!Number.isFinite(value) || value <= 0)
      throw new UsageError(`--${flag} must be a positive number, not '${String(text)}'`);
    return value;
  };
  const sizes = parsed.sizes?.split(',').map((size) => {
    const value = Number(size.trim());
    if (!Number.isInteger(value) || value <= 0)
      throw new UsageError(`--sizes: '${size}' is not a whole number of snapshots`);
    return value;
  });
  if (sizes !== undefined && (parsed.snapshots !== undefined || quick))
    throw new UsageError('--sizes gives the nights’ sizes: leave out --snapshots and --quick');
  const rate = positive('rate', parsed.rate, BASE_REQUESTS_PER_SECOND);
  // paw's request gate (platform.requestsPerSecond) refuses more than 1000 requests/s.
  if (rate > 1000)
    throw new UsageError(`--rate must be at most 1000 (paw's own limit), not ${rate}`);
  const latency = parseLatency(parsed.latency);
  const only = (parsed.only ?? (sizes === undefined ? CONTENDERS.join(',') : 'paw'))
    .split(',')
    .map((name) => name.trim());
  for (const name of only)
    if (!(CONTENDERS as readonly string[]).includes(name))
      throw new UsageError(`--only: unknown contender '${name}' (use ${CONTENDERS.join(', ')})`);
  const pawFrom = parsed['paw-from'];
  if (pawFrom !== 'compiled' && pawFrom !== 'source')
    throw new UsageError(`--paw-from must be compiled or source, not '${pawFrom}'`);
  const heap = parsed.heap;
  if (heap !== 'pod' && heap !== 'host')
    throw new UsageError(`--heap must be pod or host, not '${heap}'`);
  const storedNights = Number(parsed['stored-nights']);
  if (!Number.isInteger(storedNights) || storedNights < 0)
    throw new UsageError(
      `--stored-nights must be a whole number of nights, not '${parsed['stored-nights']}'`,
    );
  return {
    heap,
    storedNights,
    pawFrom,
    cpuProfileDir: parsed['cpu-prof'],
    logsDir: parsed.logs,
    snapshots: Math.round(positive('snapshots', parsed.snapshots, quick ? 1000 : 10_000)),
    sizes,
    rate,
    latency,
    timeScale: positive('time-scale', parsed['time-scale'], 20),
    workers: Math.round(positive('workers', parsed.workers, 3)),
    sequentialSample: Math.round(
      positive('sequential-sample', parsed['sequential-sample'], quick ? 8 : 20),
    ),
    concurrentSample: Math.round(
      positive('concurrent-sample', parsed['concurrent-sample'], quick ? 80 : 200),
    ),
    only: only as ContenderName[],
    json: parsed.json,
    markdown: parsed.markdown,
  };
}

/**
 * `npm run bench -- nightly`: paw against the scripts people write, on one simulated night (or,
 * with `--sizes`, paw on one night per size and how its costs grow). One concept per file under
 * bench/nightly/; this file puts them in order.
 */
export async function run(args: string[]): Promise<void> {
  let options: NightlyOptions | 'help';
  try {
    options = parseOptions(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`nightly: ${error.message}\n\n${HELP}`);
    process.exitCode = 2;
    return;
  }
  if (options === 'help') {
    process.stdout.write(HELP);
    return;
  }

  const progress = new Progress();
  const command = `npm run bench -- nightly ${args.join(' ')}`.trim();
  const reports: NightlyReport[] = [];
  // paw is compiled once, for every night of the run.
  let paw: PawCommand | undefined;
  if (options.only.includes('paw')) {
    if (options.pawFrom === 'compiled') progress.line('paw: compiling src/ (tsc)');
    paw = withHeap(
      withCpuProfiles(
        options.pawFrom === 'compiled' ? await compiledPaw() : sourcePaw(),
        options.cpuProfileDir,
      ),
      options.heap,
    );
  }
  try {
    for (const snapshots of options.sizes ?? [options.snapshots]) {
      const report = await runNight(options, snapshots, paw, command, progress);
      if (report === undefined) return; // a contender crashed: exit code 1, already said why
      reports.push(report);
      process.stdout.write(reportText(report, options.markdown));
      // After every night, so that a crash in a later, bigger one keeps the nights before it.
      if (options.json !== undefined) {
        const json =
          options.sizes === undefined
            ? reportJson(report)
            : { scaling: scalingJson(reports), nights: reports.map(reportJson), command };
        await writeFile(options.json, `${JSON.stringify(json, null, 2)}\n`);
        progress.line(`figures written to ${options.json}`);
      }
    }
  } finally {
    await paw?.remove();
  }
  if (options.sizes !== undefined) process.stdout.write(scalingText(reports, options.markdown));
}

/**
 * One night of `snapshots` snapshots: its own simulator process, then each contender asked
 * for. Undefined (and exit code 1) when a contender crashed.
 */
async function runNight(
  options: NightlyOptions,
  snapshots: number,
  paw: PawCommand | undefined,
  command: string,
  progress: Progress,
): Promise<NightlyReport | undefined> {
  const loadBefore = loadavg();
  const speedBefore = await machineSpeedMs();
  const settings = nightSettings(snapshots, options.timeScale, options.rate, options.latency);
  const inventoryStarted = performance.now();
  const inventory = nightInventory(settings);
  progress.line(
    `${settings.snapshots} snapshots: seeding ${inventory.workloads} workloads (seed ${settings.seed}, ` +
      `${settings.clusters} clusters; found in ${((performance.now() - inventoryStarted) / 1000).toFixed(1)} s); ` +
      `rate limit ${settings.requestsPerSecond}/s, ${settings.concurrencyPerCluster} slots per cluster`,
  );
  const pawSettings = pawNightEnvironment(settings);

  const dir = await mkdtemp(join(tmpdir(), 'paw-nightly-'));
  const simulator = await startSimulatorProcess(
    dir,
    simulatorOptions(settings, inventory.workloads),
  );
  progress.line(`simulator ready at ${simulator.baseUrl}`);
  const contenders: ContenderResult[] = [];
  let bound: LowerBound = { seconds: NaN, requestsSeconds: NaN, snapshotsSeconds: NaN };
  let simulatorPeakRssMb = NaN;
  const pollMs = Math.round(5_000 / settings.timeScale);
  try {
    if (paw !== undefined) {
      const result = await runPawContender({
        command: paw,
        baseUrl: simulator.baseUrl,
        credentialsFile: simulator.credentialsFile,
        clusterIds: inventory.clusterIds,
        snapshots: settings.snapshots,
        workerProcesses: options.workers,
        environment: pawSettings,
        rateLimit: { requestsPerSecond: settings.requestsPerSecond, burst: settings.burst },
        minLatencyMs: settings.latency.minMs,
        dir,
        logsDir: options.logsDir,
        storedNights: options.storedNights,
        progress,
      });
      contenders.push(result.result);
      bound = result.lowerBound;
    }
    const scripts = [
      {
        name: 'sequential' as const,
        description: 'one at a time, polled every 5 s',
        sample: options.sequentialSample,
      },
      {
        name: 'concurrent' as const,
        description: '10 at a time, each polled every 5 s',
        sample: options.concurrentSample,
      },
    ];
    for (const script of scripts) {
      if (!options.only.includes(script.name)) continue;
      contenders.push(
        await runScriptContender({
          ...script,
          script: `bench/nightly/scripts/${script.name}.ts`,
          baseUrl: simulator.baseUrl,
          credentialsFile: simulator.credentialsFile,
          workloadIds: inventory.workloadIds,
          pollMs,
          dir,
          progress,
        }),
      );
    }
    // Its largest resident set over the whole night: the inventory, every job, /_sim/jobs.
    simulatorPeakRssMb = processUsage(simulator.pid)?.peakRssMb ?? NaN;
  } catch (error) {
    if (!(error instanceof ContenderCrashedError)) throw error;
    process.stderr.write(`nightly: a contender crashed: ${error.message}\n`);
    process.exitCode = 1;
    return undefined;
  } finally {
    await simulator.stop();
    await rm(dir, { recursive: true, force: true });
  }

  return {
    command,
    machine: {
      cpus: cpus().length,
      model: cpus()[0]?.model ?? 'unknown',
      node: process.version,
      speedLoopMs: { before: speedBefore, after: await machineSpeedMs() },
    },
    loadAverage: { before: loadBefore.map(round2), after: loadavg().map(round2) },
    settings: {
      ...settings,
      workloadsSeeded: inventory.workloads,
      clusterIds: inventory.clusterIds,
    },
    pawSettings: {
      ...pawSettings,
      workerProcesses: String(options.workers),
      pawFrom: options.pawFrom,
    },
    lowerBoundSeconds: bound.seconds,
    lowerBound: { ...bound, formula: LOWER_BOUND_FORMULA },
    simulatorPeakRssMb,
    contenders,
    targets: pawTargets(contenders),
  };
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/** `--latency`: `MS` (every request) or `MIN-MAX` (uniform), real milliseconds. */
function parseLatency(text: string | undefined): NightLatency {
  const match = /^(\d+)(?:-(\d+))?$/.exec(text ?? '');
  const minMs = Number(match?.[1]);
  const maxMs = Number(match?.[2] ?? match?.[1]);
  if (match === null || !(minMs <= maxMs) || maxMs > 600_000) {
    throw new UsageError(
      `--latency is milliseconds per request, one number (20) or a range (300-2500), at most 600000, not '${String(text)}'`,
    );
  }
  return { minMs, maxMs };
}
