import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { RunRecord } from '../../src/outcomes/outcome-records.js';
import { isActiveStatus } from '../../src/outcomes/outcome-status.js';
import { OutcomeStore } from '../../src/outcomes/outcome-store.js';
import { findFreePort } from '../../src/net/free-port.js';
import { startPrivateRedisServer } from '../../src/redis/private-redis-server.js';
import type { PawCommand } from './compiled-paw.js';
import { ContenderCrashedError, type ContenderResult } from './contender-result.js';
import { lowerBound, type LowerBound } from './lower-bound.js';
import { platformFigures, resetPlatformCounters } from './platform-figures.js';
import { processUsage, type ProcessUsage } from './process-usage.js';
import { callsBetween, commandCalls, totalCalls } from '../support/redis-command-stats.js';
import type { Progress } from './progress.js';

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
  readonly dir: string;
  readonly progress: Progress;
}

export interface PawResult {
  readonly result: ContenderResult;
  readonly lowerBound: LowerBound;
}

const DEFINITION_ID = 'bench-nightly';

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
  const environment: NodeJS.ProcessEnv = {
    ...process.env,
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
    const { entry } = options.command;
    // Each long-running process serves health and metrics on a port of its own, as in
    // production: Node's process metrics (event-loop lag sampling) cost CPU too.
    const serving = async (): Promise<NodeJS.ProcessEnv> => ({
      ...environment,
      PAW_HTTP_PORT: String(await findFreePort()),
    });
    processes.push(startPaw([...entry, 'start'], await serving(), 'paw start'));
    for (let index = 1; index < options.workerProcesses; index++)
      processes.push(
        startPaw(
          [...entry, 'worker', '--kinds', 'snapshot'],
          await serving(),
          `paw worker ${index}`,
        ),
      );
    await Promise.all(processes.map((paw) => paw.ready));
    progress.line(
      `paw: ${processes.length} processes ready (${processes.map((paw) => paw.name).join(', ')})`,
    );

    const atStart = processes.map(usageOf);
    const redisCpuAtStart = processUsage(redisServer.pid)?.cpuMs ?? NaN;
    const commandsAtStart = await commandCalls(redis);
    await resetPlatformCounters(options.baseUrl);
    const since = Date.now();
    const runId = await firePawRun(entry, environment);
    progress.line(`paw: fired run ${runId}`);

    const store = new OutcomeStore(redis, 'paw');
    const run = await waitForRun(store, runId, processes, progress);
    const usage = processes.map(usageOf);
    const redisCpuMs = (processUsage(redisServer.pid)?.cpuMs ?? NaN) - redisCpuAtStart;
    const platform = await platformFigures(options.baseUrl, since);
    const redisMb = await usedMemoryMb(redis);
    const commands = callsBetween(commandsAtStart, await commandCalls(redis));

    const createdAt = Date.parse(run.createdAt);
    const finishedAt = Date.parse(run.finishedAt ?? new Date().toISOString());
    const makespanSeconds = (finishedAt - createdAt) / 1000;
    const bound = lowerBound({
      jobs: platform.jobs.map((job) => ({ clusterId: job.clusterId, runMs: job.runMs })),
      requestsPerSecond: options.rateLimit.requestsPerSecond,
      burst: options.rateLimit.burst,
      concurrencyPerCluster: platform.schedule.concurrencyPerCluster,
      queuedMs: platform.schedule.queuedMs,
    });
    const triggered = Math.max(1, platform.triggers);
    const spent = (measure: (usage: ProcessUsage) => number): number =>
      usage.reduce((sum, now, index) => {
        const start = atStart[index];
        return sum + measure(now) - (start === undefined ? 0 : measure(start));
      }, 0);
    const cpuMs = spent((one) => one.cpuMs);
    progress.line(
      `paw: run ${run.status} after ${makespanSeconds.toFixed(1)} s (lower bound ${bound.seconds.toFixed(1)} s)`,
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
        peakRssMb: Math.max(...usage.map((one) => one.peakRssMb)),
        processes: processes.length,
        redisMb,
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

interface PawProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  /** Last lines of its standard error, for a crash report. */
  stderrTail(): string;
  exited(): boolean;
  stop(): Promise<void>;
}

function startPaw(args: string[], environment: NodeJS.ProcessEnv, name: string): PawProcess {
  const child = spawn(process.execPath, args, {
    env: environment,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let tail = '';
  let hasExited = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      hasExited = true;
      resolve();
    }),
  );
  const ready = new Promise<void>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
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

function usageOf(paw: PawProcess): ProcessUsage {
  const usage = paw.child.pid === undefined ? undefined : processUsage(paw.child.pid);
  if (usage === undefined)
    throw new ContenderCrashedError(`${paw.name} is gone:\n${paw.stderrTail()}`);
  return usage;
}

/** `paw run <id> --json`: fires the definition now; returns the run id. */
async function firePawRun(
  entry: readonly string[],
  environment: NodeJS.ProcessEnv,
): Promise<string> {
  const child = spawn(process.execPath, [...entry, 'run', DEFINITION_ID, '--json'], {
    env: environment,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0)
    throw new ContenderCrashedError(`paw run exited with ${String(code)}:\n${stderr}`);
  return (JSON.parse(stdout) as { runId: string }).runId;
}

async function waitForRun(
  store: OutcomeStore,
  runId: string,
  processes: readonly PawProcess[],
  progress: Progress,
): Promise<RunRecord & { createdAt: string }> {
  let lastReport = 0;
  for (;;) {
    const dead = processes.find((paw) => paw.exited());
    if (dead !== undefined)
      throw new ContenderCrashedError(`${dead.name} exited during the run:\n${dead.stderrTail()}`);
    const run = await store.getRun(runId);
    if (run !== undefined && !isActiveStatus(run.status)) return run;
    if (Date.now() - lastReport >= 5_000 && run !== undefined) {
      lastReport = Date.now();
      const { counts } = run;
      const ended = counts.succeeded + counts.failed + counts.canceled + counts.timedOut;
      progress.line(
        `paw: ${run.status}, ${ended}/${counts.total} ended (${counts.running} running, ${counts.queued} queued)`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function usedMemoryMb(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  const bytes = Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? NaN);
  return bytes / (1024 * 1024);
}
