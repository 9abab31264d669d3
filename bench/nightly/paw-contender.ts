import type { ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { RunRecord } from '../../src/outcomes/outcome-records.js';
import { isActiveStatus } from '../../src/outcomes/outcome-status.js';
import { Outcomes } from '../../src/outcomes/outcomes.js';
import { findFreePort } from '../../src/shared/free-port.js';
import { startPrivateRedisServer } from '../../src/redis/private-redis-server.js';
import { fillOutcomeStore, fillWorkloads } from '../support/outcome-fill.js';
import { settledUsedMemoryBytes } from '../support/used-memory.js';
import type { PawCommand } from './compiled-paw.js';
import { ContenderCrashedError, type ContenderResult } from './contender-result.js';
import { lowerBound, type LowerBound } from './lower-bound.js';
import { measureExport, measureLatency } from './operations-figures.js';
import { platformFigures, resetPlatformCounters } from './platform-figures.js';
import { processUsage, type ProcessUsage } from './process-usage.js';
import { RequestRateSampler } from './request-rate.js';
import { SimulatorStallProbe } from './simulator-stalls.js';
import { callsBetween, commandCalls, totalCalls } from '../support/redis-command-stats.js';
import type { Progress } from './progress.js';
import { eventually } from '../../test/testkit/eventually.js';
import { packEndedRuns } from '../support/pack-ended-runs.js';
import { spawnPaw } from '../../test/testkit/paw-process.js';

export interface PawContenderOptions {
  readonly baseUrl: string;
  readonly credentialsFile: string;
  readonly clusterIds: readonly string[];
  readonly snapshots: number;
  /** How paw is run: compiled, or from source. */
  readonly command: PawCommand;
  /** Worker processes: `paw start` plus this many minus one `paw worker`. */
  readonly workerProcesses: number;
  /** paw's settings as environment variables (the request gate, the poll schedule). */
  readonly environment: Record<string, string>;
  readonly rateLimit: { readonly requestsPerSecond: number; readonly burst: number };
  /** The shortest latency of the platform's requests (the lower bound counts it). */
  readonly minLatencyMs: number;
  readonly dir: string;
  /** Keep each process's log (its standard error) in this folder, `<process>-<N>.log`. */
  readonly logsDir?: string | undefined;
  /** Nights of `snapshots` items stored before the night (another definition's), packed. */
  readonly storedNights?: number;
  readonly progress: Progress;
}

export interface PawResult {
  readonly result: ContenderResult;
  readonly lowerBound: LowerBound;
}

const DEFINITION_ID = 'bench-nightly';
const DAY_MS = 86_400_000;
/** How long paw's processes are watched idle, after they are ready and before the fire. */
const IDLE_MEASURE_MS = 5_000;
/** GETs of each dashboard API route timed after the night. */
const DASHBOARD_REQUESTS = 20;

/**
 * paw as it runs in production: a private redis-server, `paw start` (scheduler and workers) and
 * more `paw worker` processes, one snapshot definition covering the night's workloads, fired
 * with `paw run`. The run's makespan is the outcome store's own: from the run's record
 * (`createdAt`, when it was fired) to its `finishedAt`. CPU time is each paw process's
 * `utime + stime` (/proc) from when all were ready to when the run ended, so start-up is not
 * counted; peak memory is each one's VmHWM.
 */
export async function runPawContender(options: PawContenderOptions): Promise<PawResult> {
  const { progress } = options;
  const redisServer = await startPrivateRedisServer();
  const jobsDir = join(options.dir, 'jobs');
  // An empty paw.yaml: the defaults plus the variables below, never the repository's config/.
  const configDir = join(options.dir, 'config');
  await mkdir(jobsDir, { recursive: true });
  await mkdir(configDir, { recursive: true });
  await writeFile(join(configDir, 'paw.yaml'), '{}\n');
  await writeFile(join(jobsDir, `${DEFINITION_ID}.yaml`), definitionYaml(options.clusterIds));
  const environment: Record<string, string> = {
    PAW_CONFIG_DIR: configDir,
    PAW_JOBS_DIR: jobsDir,
    PAW_REDIS_URL: redisServer.url,
    PAW_CREDENTIALS_FILE: options.credentialsFile,
    // `paw run` serves nothing; the long-running processes get ports of their own below.
    PAW_HTTP_PORT: '0',
    PAW_LOG_LEVEL: 'warn',
    ...options.environment,
  };

  const processes: PawProcess[] = [];
  const redis = new Redis(redisServer.url, { maxRetriesPerRequest: null });
  try {
    if ((options.storedNights ?? 0) > 0) {
      await storeEarlierNights(redis, options.storedNights ?? 0, options.snapshots, progress);
    }
    const { entry } = options.command;
    // Each long-running process serves health and metrics on a port of its own, as in
    // production: Node's process metrics (event-loop lag sampling) cost CPU too.
    const serving = async (): Promise<Record<string, string>> => ({
      ...environment,
      PAW_HTTP_PORT: String(await findFreePort()),
    });
    const startEnvironment = await serving();
    const logFile = async (name: string): Promise<string | undefined> => {
      if (options.logsDir === undefined) return undefined;
      await mkdir(options.logsDir, { recursive: true });
      return join(options.logsDir, `${name.replaceAll(' ', '-')}-${options.snapshots}.log`);
    };
    processes.push(
      startPaw(entry, ['start'], startEnvironment, 'paw start', await logFile('paw start')),
    );
    for (let index = 1; index < options.workerProcesses; index++)
      processes.push(
        startPaw(
          entry,
          ['worker', '--kinds', 'snapshot'],
          await serving(),
          `paw worker ${index}`,
          await logFile(`paw worker ${index}`),
        ),
      );
    await Promise.all(processes.map((paw) => paw.ready));
    progress.line(
      `paw: ${processes.length} processes ready (${processes.map((paw) => paw.name).join(', ')})`,
    );

    // Their CPU while idle (timers, metrics, BullMQ's blocking reads) for a few seconds before
    // the fire: part of every night's CPU, the more so the longer the night's tail.
    const idleFrom = processes.map(usageOf);
    const idleStarted = performance.now();
    await new Promise((resolve) => setTimeout(resolve, IDLE_MEASURE_MS));
    const atStart = processes.map(usageOf);
    const idleCpuMsPerSecond =
      (cpuBetween(idleFrom, atStart) * 1000) / (performance.now() - idleStarted);
    const redisCpuAtStart = processUsage(redisServer.pid)?.cpuMs ?? NaN;
    const commandsAtStart = await commandCalls(redis);
    await resetPlatformCounters(options.baseUrl);
    const since = Date.now();
    const stallProbe = new SimulatorStallProbe(options.baseUrl);
    const requestRate = new RequestRateSampler(options.baseUrl);
    const runId = await firePawRun(entry, environment);
    progress.line(`paw: fired run ${runId}`);

    const store = new Outcomes(redis, 'paw');
    const run = await waitForRun(store, runId, processes, progress).finally(async () => {
      await requestRate.stop();
      await stallProbe.stop();
    });
    const simulatorStalls = await stallProbe.stop();
    const usage = processes.map(usageOf);
    const redisCpuMs = (processUsage(redisServer.pid)?.cpuMs ?? NaN) - redisCpuAtStart;
    const platform = await platformFigures(options.baseUrl, since);
    progress.line(
      `paw: read ${platform.jobs.length} jobs from /_sim/jobs (${platform.jobsRead.megabytes.toFixed(1)} MB) in ${platform.jobsRead.seconds.toFixed(1)} s`,
    );
    const redisMemory = await usedMemoryMb(redis);
    const commands = callsBetween(commandsAtStart, await commandCalls(redis));

    const createdAt = Date.parse(run.createdAt);
    const finishedAt = Date.parse(run.finishedAt ?? new Date().toISOString());
    const makespanSeconds = (finishedAt - createdAt) / 1000;
    const boundStarted = performance.now();
    const bound = lowerBound({
      jobs: platform.jobs.map((job) => ({ clusterId: job.clusterId, runMs: job.runMs })),
      requestsPerSecond: options.rateLimit.requestsPerSecond,
      burst: options.rateLimit.burst,
      concurrencyPerCluster: platform.schedule.concurrencyPerCluster,
      queuedMs: platform.schedule.queuedMs,
      minLatencyMs: options.minLatencyMs,
    });
    const boundMs = performance.now() - boundStarted;
    const firstJob = platform.jobs[0];
    const lastJob = platform.jobs.at(-1);
    const triggerSeconds =
      firstJob === undefined || lastJob === undefined
        ? undefined
        : {
            first: (firstJob.triggeredAt - createdAt) / 1000,
            last: (lastJob.triggeredAt - createdAt) / 1000,
            requestsPerSecond: requestRate.rateBetween(firstJob.triggeredAt, lastJob.triggeredAt),
          };
    const triggered = Math.max(1, platform.triggers);
    const spent = (measure: (usage: ProcessUsage) => number): number =>
      usage.reduce((sum, now, index) => {
        const start = atStart[index];
        return sum + measure(now) - (start === undefined ? 0 : measure(start));
      }, 0);
    const cpuMs = spent((one) => one.cpuMs);
    progress.line(
      `paw: run ${run.status} after ${makespanSeconds.toFixed(1)} s (lower bound ${bound.seconds.toFixed(1)} s, computed in ${boundMs.toFixed(0)} ms)`,
    );

    // What an operator pays for the night afterwards, measured after every figure above (the
    // export and the API requests cost paw's processes and Redis CPU of their own).
    progress.line(`paw: exporting the run's items (paw outcomes --run ${runId} --export jsonl)`);
    const exported = await measureExport({
      entry,
      environment,
      filters: ['--run', runId],
      dir: options.dir,
    });
    progress.line(
      `paw: exported ${exported.rows} items (${exported.megabytes.toFixed(1)} MB) in ${exported.seconds.toFixed(1)} s`,
    );
    if (exported.rows !== options.snapshots)
      progress.line(`paw: the export has ${exported.rows} rows, not ${options.snapshots}`);
    // paw start's ops server, with no authentication configured: on loopback it answers
    // anyone (src/ops/auth/ops-access.ts), as the bench's requests come from 127.0.0.1.
    const opsUrl = `http://127.0.0.1:${startEnvironment.PAW_HTTP_PORT ?? ''}`;
    const requests = DASHBOARD_REQUESTS;
    const dashboard = [
      await measureLatency(opsUrl, '/api/runs', requests),
      await measureLatency(
        opsUrl,
        `/api/runs/${encodeURIComponent(runId)}`,
        requests,
        '/api/runs/<run>',
      ),
    ];
    progress.line(
      `paw: dashboard API: ${dashboard
        .map(
          (one) =>
            `GET ${one.path} median ${one.medianMs.toFixed(1)} ms, max ${one.maxMs.toFixed(1)} ms`,
        )
        .join('; ')} (${requests} requests each)`,
    );
    return {
      lowerBound: bound,
      result: {
        name: 'paw',
        description: `paw start + ${options.workerProcesses - 1} paw worker, ${options.command.describe}`,
        snapshots: options.snapshots,
        makespanSeconds,
        measuredMakespanSeconds: makespanSeconds,
        requestsPerSnapshot: platform.requests / triggered,
        requestsByOperation: platform.requestsByOperation,
        rateLimited: platform.rateLimited,
        statuses: platform.statuses,
        cpuMsPerSnapshot: cpuMs / triggered,
        idleCpuMsPerSecond,
        peakRssMb: Math.max(...usage.map((one) => one.peakRssMb)),
        peakRssMbByProcess: Object.fromEntries(
          processes.map((paw, index) => [paw.name, usage[index]?.peakRssMb ?? NaN]),
        ),
        processes: processes.length,
        redisMb: redisMemory.usedMb,
        redisPeakMb: redisMemory.peakMb,
        redisCpuMsPerSnapshot: redisCpuMs / triggered,
        systemCallsPerSnapshot: {
          read: spent((one) => one.readCalls) / triggered,
          write: spent((one) => one.writeCalls) / triggered,
        },
        redisCommandsPerSnapshot: totalCalls(commands) / triggered,
        redisScriptsPerSnapshot:
          ((commands.get('evalsha') ?? 0) + (commands.get('eval') ?? 0)) / triggered,
        redisCommandsByName: Object.fromEntries(
          [...commands].map(([name, calls]) => [name, Math.round((calls / triggered) * 100) / 100]),
        ),
        lowerBoundRatio: makespanSeconds / bound.seconds,
        simulatorStalls,
        ...(triggerSeconds === undefined ? {} : { triggerSeconds }),
        export: exported,
        dashboard,
      },
    };
  } finally {
    await Promise.all(processes.map((paw) => paw.stop()));
    redis.disconnect();
    await redisServer.stop();
  }
}

function definitionYaml(clusterIds: readonly string[]): string {
  return [
    '# The night of `npm run bench -- nightly`: every VM and database on the Connected clusters.',
    `id: ${DEFINITION_ID}`,
    'kind: snapshot',
    'enabled: false # fired by hand (paw run), never by the schedule',
    "schedule: { cron: '0 1 * * *', timezone: UTC }",
    `targets: { types: [VSPHERE_VM, MSSQL_DATABASE], clusterIds: [${clusterIds.join(', ')}] }`,
    '# As the scripts do: each snapshot is retained by its workload’s own SLA Domain.',
    'keepForever: true',
    'maxWait: 6h',
    '',
  ].join('\n');
}

export interface PawProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  /** Last lines of its standard error, for a crash report. */
  stderrTail(): string;
  exited(): boolean;
  stop(): Promise<void>;
}

export function startPaw(
  entry: readonly string[],
  args: readonly string[],
  environment: Readonly<Record<string, string>>,
  name: string,
  logFile: string | undefined,
): PawProcess {
  const child = spawnPaw(args, { cwd: process.cwd(), env: environment, entry, stdout: false });
  // paw logs to standard error: kept whole in the file, its tail here.
  const log = logFile === undefined ? undefined : createWriteStream(logFile);
  let tail = '';
  let hasExited = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      hasExited = true;
      log?.end();
      resolve();
    }),
  );
  const ready = new Promise<void>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      log?.write(chunk);
      tail = (tail + chunk.toString('utf8')).slice(-4000);
      if (/: ready\b/.test(tail)) resolve();
    });
    void exit.then(() =>
      reject(new ContenderCrashedError(`${name} exited before it was ready:\n${tail}`)),
    );
  });
  ready.catch(() => undefined); // observed by the caller; avoid an unhandled rejection
  return {
    name,
    child,
    ready,
    stderrTail: () => tail,
    exited: () => hasExited,
    stop: async () => {
      if (hasExited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
      await exit;
      clearTimeout(timer);
    },
  };
}

/** CPU ms all processes used between two readings of each. */
function cpuBetween(before: readonly ProcessUsage[], after: readonly ProcessUsage[]): number {
  return after.reduce((sum, now, index) => sum + now.cpuMs - (before[index]?.cpuMs ?? 0), 0);
}

export function usageOf(paw: PawProcess): ProcessUsage {
  const usage = paw.child.pid === undefined ? undefined : processUsage(paw.child.pid);
  if (usage === undefined)
    throw new ContenderCrashedError(`${paw.name} is gone:\n${paw.stderrTail()}`);
  return usage;
}

/** `paw run <id> --json`: fires the definition now; returns the run id. */
async function firePawRun(
  entry: readonly string[],
  environment: Readonly<Record<string, string>>,
): Promise<string> {
  const child = spawnPaw(['run', DEFINITION_ID, '--json'], {
    cwd: process.cwd(),
    env: environment,
    entry,
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0)
    throw new ContenderCrashedError(`paw run exited with ${String(code)}:\n${stderr}`);
  return (JSON.parse(stdout) as { runId: string }).runId;
}

async function waitForRun(
  store: Outcomes,
  runId: string,
  processes: readonly PawProcess[],
  progress: Progress,
): Promise<RunRecord & { createdAt: string }> {
  let lastReport = 0;
  // No deadline: a contender either ends its night or crashes (and that is reported).
  return eventually(
    `run ${runId} to end`,
    async () => {
      const dead = processes.find((paw) => paw.exited());
      if (dead !== undefined)
        throw new ContenderCrashedError(
          `${dead.name} exited during the run:\n${dead.stderrTail()}`,
        );
      const run = await store.runs.get(runId);
      if (run !== undefined && !isActiveStatus(run.status)) return run;
      if (Date.now() - lastReport >= 5_000 && run !== undefined) {
        lastReport = Date.now();
        const { counts } = run;
        const ended = counts.succeeded + counts.failed + counts.canceled + counts.timedOut;
        progress.line(
          `paw: ${run.status}, ${ended}/${counts.total} ended (${counts.running} running, ${counts.queued} queued)`,
        );
      }
      return undefined;
    },
    { timeoutMs: Infinity, intervalMs: 250 },
  );
}

/** Redis's `used_memory` now and `used_memory_peak` (since it started), MB. */
async function usedMemoryMb(redis: Redis): Promise<{ usedMb: number; peakMb: number }> {
  const info = await redis.info('memory');
  const megabytes = (field: string): number =>
    Number(new RegExp(`^${field}:(\\d+)`, 'm').exec(info)?.[1] ?? NaN) / (1024 * 1024);
  return { usedMb: megabytes('used_memory'), peakMb: megabytes('used_memory_peak') };
}

/**
 * Fills the outcome store with `nights` earlier nights of `items` items of another definition,
 * through paw's recording path, and packs them as paw's scheduler would have after each: the
 * store a night meets after months in production.
 */
async function storeEarlierNights(
  redis: Redis,
  nights: number,
  items: number,
  progress: Progress,
): Promise<void> {
  const outcomes = new Outcomes(redis, 'paw');
  await fillOutcomeStore(outcomes, {
    definitionId: 'earlier-nights',
    nights,
    workloads: fillWorkloads(items),
    firstNight: Date.now() - (nights + 0.5) * DAY_MS,
    onNight: (night) => {
      if ((night + 1) % 10 === 0 || night + 1 === nights)
        progress.line(`paw: stored ${night + 1} of ${nights} earlier nights of ${items} items`);
    },
  });
  await packEndedRuns(redis, 'paw');
  const used = await settledUsedMemoryBytes(redis);
  progress.line(
    `paw: earlier nights packed; Redis used_memory ${(used / 1024 / 1024).toFixed(0)} MiB`,
  );
}
