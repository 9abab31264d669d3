import { parseArgs } from 'node:util';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { PAW_VERSION } from '../src/shared/paw-version.js';
import { Secret } from '../src/config/secret.js';
import { settingsSchema, type Settings } from '../src/config/settings-schema.js';
import { jobDefinitionSchema, type JobDefinition } from '../src/definitions/job-definition.js';
import { Shutdown } from '../src/shared/shutdown.js';
import { createLogger, type Logger } from '../src/shared/logger.js';
import { PawMetrics } from '../src/ops/metrics/paw-metrics.js';
import { openNotificationProducer } from '../src/queue/notifications/open-notification-producer.js';
import { workerObservers } from '../src/ops/worker-observers.js';
import { Outcomes } from '../src/outcomes/outcomes.js';
import { runIdFor } from '../src/queue/run-id.js';
import { RUN_JOB_NAME, type RunJobData } from '../src/queue/run-job.js';
import { RunProducer } from '../src/queue/run-producer.js';
import { RunQueues, defaultJobOptions, queueNameOf } from '../src/queue/run-queues.js';
import { startPrivateRedisServer } from '../src/redis/private-redis-server.js';
import { RunFirer } from '../src/scheduler/run-firer.js';
import { startWorkerService } from '../src/cli/services/worker-service.js';
import { openOutcomes } from '../src/cli/services/open-outcomes.js';
import {
  benchContext,
  contextLines,
  finishContext,
  optionsOrUsage,
  progressReporter,
  renderTable,
  round1,
  round2,
  writeJsonReport,
} from './support/bench-report.js';
import { pinProcesses } from './support/cpu-pinning.js';
import { noopProcessorFactory } from './support/noop-kind-processor.js';
import { ownCpuMs, processCpuMs } from './support/process-cpu.js';
import { callsBetween, commandCalls, totalCalls } from './support/redis-command-stats.js';
import { eventually } from '../test/testkit/eventually.js';

const USAGE = `usage: npm run bench -- queue [options]

paw's cost per job against BullMQ's own, for a job that does nothing. Against a private
redis-server (pinned to CPU 0; this process on CPU 1 where taskset exists), the same number of
jobs goes through three paths, each in two timed phases (enqueue all, then process all):

  bullmq addBulk   Queue.addBulk (chunks of 1,000), then a Worker with an empty processor
  bullmq add       Queue.add per job (as paw adds them), then the same Worker
  paw              RunFirer.fire per job, as the scheduler does (outcome run record, validated
                   job data, Queue.add, an info log line to /dev/null), then paw's worker service
                   as \`paw worker\` runs it (metrics observers, run-end notifications) with a
                   bench-only kind processor that validates the job data, starts the run and
                   finishes it in the outcome store

All three carry the same job data (a run job with its definition) and paw's job options
(attempts, backoff, removeOnComplete/removeOnFail), and process with the same concurrency
(queues.snapshot.concurrency, 20). Figures are medians over the rounds.

  --jobs N          jobs per path and round (default 10000)
  --rounds N        rounds, each running every path once (default 3)
  --in-flight N     enqueue calls in flight for the per-job paths (default 50)
  --quick           1,000 jobs, one round
  --markdown        print the tables as Markdown
  --json FILE       also write every figure (and the Redis commands by name) as JSON to FILE
  --help            this text

CPU is user + system time: this process's (process.cpuUsage) and redis-server's (/proc), per
1,000 jobs. Redis commands per job come from INFO commandstats. Exit 1 when a job failed or was
left unprocessed, 2 on bad usage.
`;

const PATHS = ['bullmq addBulk', 'bullmq add', 'paw'] as const;
type PathName = (typeof PATHS)[number];
const PHASES = ['enqueue', 'process', 'total'] as const;
type PhaseName = (typeof PHASES)[number];
const BULK_CHUNK = 1000;
const DRAIN_POLL_MS = 100;

interface Options {
  jobs: number;
  rounds: number;
  inFlight: number;
  markdown: boolean;
  json: string | undefined;
}

function parseOptions(args: string[]): Options | undefined {
  const { values } = parseArgs({
    args,
    options: {
      jobs: { type: 'string' },
      rounds: { type: 'string' },
      'in-flight': { type: 'string' },
      quick: { type: 'boolean', default: false },
      markdown: { type: 'boolean', default: false },
      json: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) return undefined;
  const count = (name: string, text: string | undefined, fallback: number) => {
    if (text === undefined) return fallback;
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1) {
      throw new Error(`--${name} ${text}: expected a whole number of at least 1`);
    }
    return value;
  };
  return {
    jobs: count('jobs', values.jobs, values.quick ? 1000 : 10_000),
    rounds: count('rounds', values.rounds, values.quick ? 1 : 3),
    inFlight: count('in-flight', values['in-flight'], 50),
    markdown: values.markdown,
    json: values.json,
  };
}

/** What one phase of one path cost. */
interface PhaseCost {
  readonly wallMs: number;
  readonly nodeCpuMs: number;
  readonly redisCpuMs: number;
  readonly commands: Map<string, number>;
}

/** The environment every path runs in. */
interface Bench {
  readonly url: string;
  readonly admin: Redis;
  readonly redisPid: number;
  readonly inFlight: number;
  /** paw's settings for a key prefix of its own. */
  settings(prefix: string): Settings;
  readonly definition: JobDefinition;
  readonly logger: Logger;
}

export async function run(args: string[]): Promise<void> {
  const options = optionsOrUsage(args, parseOptions, USAGE);
  if (options === undefined) return;
  const context = benchContext('queue', args);
  const progress = progressReporter('queue');
  progress('starting a private redis-server');
  const server = await startPrivateRedisServer();
  const admin = new Redis(server.url);
  const pinning = pinProcesses([
    { pid: server.pid, cpu: 0, name: 'redis-server' },
    { pid: process.pid, cpu: 1, name: 'the bench (producers and workers)' },
  ]);
  // Each record goes to /dev/null at paw's default level: formatting it is part of paw's cost.
  const logger = createLogger({ level: 'info', destination: pino.destination('/dev/null') });
  const bench: Bench = {
    url: server.url,
    admin,
    redisPid: server.pid,
    inFlight: options.inFlight,
    logger,
    settings: (prefix) =>
      settingsSchema.parse({
        redis: { url: server.url, prefix },
        // The no-op processor never calls the platform: the client is built, never used.
        platform: {
          url: 'http://127.0.0.1:9',
          clientId: 'bench-unused',
          clientSecret: new Secret('bench-unused'),
        },
        http: { port: 0 },
      }),
    definition: jobDefinitionSchema.parse({
      id: 'bench-noop',
      kind: 'snapshot',
      // allow: every fire enqueues (skip would add a read per fire and skip all but the first).
      schedule: { cron: '0 1 * * *', timezone: 'UTC', overlap: 'allow' },
      targets: { types: ['VSPHERE_VM'] },
      retention: { slaDomainName: 'Gold' },
    }),
  };
  const results = new Map<PathName, PhaseCost[][]>(PATHS.map((path) => [path, []]));
  try {
    const warmUp = Math.min(1000, options.jobs);
    progress(`warming up: ${warmUp} jobs through each path (not measured)`);
    for (const path of PATHS) await runPath(bench, path, warmUp, 'warmup');
    for (let round = 1; round <= options.rounds; round++) {
      for (const path of PATHS) {
        const costs = await runPath(bench, path, options.jobs, `r${round}`);
        results.get(path)?.push(costs);
        const total = costs[2];
        progress(
          `round ${round}/${options.rounds}, ${path}: ${options.jobs} jobs in ` +
            `${round1((total?.wallMs ?? 0) / 1000)} s`,
        );
      }
    }
    const report = summarise(finishContext(context), options, pinning, results);
    print(report, options.markdown);
    if (options.json !== undefined) await writeJsonReport(options.json, report);
  } catch (error) {
    process.stderr.write(`bench queue: ${(error as Error).message}\n`);
    process.exitCode = 1;
  } finally {
    await admin.quit().catch(() => admin.disconnect());
    await server.stop();
  }
}

/** Runs `jobs` jobs through `path` on a fresh prefix: the enqueue, process and total costs. */
async function runPath(
  bench: Bench,
  path: PathName,
  jobs: number,
  label: string,
): Promise<PhaseCost[]> {
  await bench.admin.flushall();
  const prefix = `bq-${label}-${path.replace(/\W+/g, '-')}`;
  const settings = bench.settings(prefix);
  const fireTimes = Array.from(
    { length: jobs },
    (_, index) => new Date(Date.UTC(2026, 0, 1) + index * 1000),
  );
  const enqueue = path === 'paw' ? pawEnqueue : bullmqEnqueue(path === 'bullmq addBulk');
  const process = path === 'paw' ? pawProcess : bullmqProcess;
  const enqueueCost = await measure(bench, () => enqueue(bench, settings, fireTimes));
  const processCost = await measure(bench, () => process(bench, settings, jobs));
  const queue = new Queue(queueNameOf(settings.queues, 'snapshot'), {
    connection: bench.admin,
    prefix,
  });
  const counts = await queue.getJobCounts('failed', 'wait', 'active', 'delayed');
  await queue.close();
  const left = (counts['wait'] ?? 0) + (counts['active'] ?? 0) + (counts['delayed'] ?? 0);
  if ((counts['failed'] ?? 0) > 0 || left > 0) {
    throw new Error(
      `${path}: ${counts['failed'] ?? 0} jobs failed and ${left} were left unprocessed`,
    );
  }
  return [enqueueCost, processCost, sumCosts(enqueueCost, processCost)];
}

async function measure(bench: Bench, body: () => Promise<void>): Promise<PhaseCost> {
  const commandsBefore = await commandCalls(bench.admin);
  const redisBefore = processCpuMs(bench.redisPid);
  const nodeBefore = ownCpuMs();
  const started = performance.now();
  await body();
  const wallMs = performance.now() - started;
  const nodeCpuMs = ownCpuMs() - nodeBefore;
  const redisCpuMs = processCpuMs(bench.redisPid) - redisBefore;
  const commands = callsBetween(commandsBefore, await commandCalls(bench.admin));
  return { wallMs, nodeCpuMs, redisCpuMs, commands };
}

function sumCosts(a: PhaseCost, b: PhaseCost): PhaseCost {
  const commands = new Map(a.commands);
  for (const [name, count] of b.commands) commands.set(name, (commands.get(name) ?? 0) + count);
  return {
    wallMs: a.wallMs + b.wallMs,
    nodeCpuMs: a.nodeCpuMs + b.nodeCpuMs,
    redisCpuMs: a.redisCpuMs + b.redisCpuMs,
    commands,
  };
}

/** Runs `task` for each item with at most `limit` calls in flight. */
async function withInFlight<T>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<unknown>,
) {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await task(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/** The data paw's scheduler would enqueue for `fireTime` (the bare paths carry the same). */
function runJobData(definition: JobDefinition, fireTime: Date): RunJobData {
  return {
    runId: runIdFor(definition.id, fireTime, 'cron'),
    definitionId: definition.id,
    kind: definition.kind,
    fireTime: fireTime.toISOString(),
    trigger: 'cron',
    enqueuedAt: new Date().toISOString(),
    definition,
  };
}

function bullmqEnqueue(bulk: boolean) {
  return async (bench: Bench, settings: Settings, fireTimes: readonly Date[]): Promise<void> => {
    const connection = new Redis(bench.url);
    const queue = new Queue(queueNameOf(settings.queues, 'snapshot'), {
      connection,
      prefix: settings.redis.prefix,
      defaultJobOptions: defaultJobOptions(settings.queues),
    });
    try {
      const data = fireTimes.map((fireTime) => runJobData(bench.definition, fireTime));
      if (bulk) {
        for (let offset = 0; offset < data.length; offset += BULK_CHUNK) {
          await queue.addBulk(
            data
              .slice(offset, offset + BULK_CHUNK)
              .map((job) => ({ name: RUN_JOB_NAME, data: job, opts: { jobId: job.runId } })),
          );
        }
      } else {
        await withInFlight(data, bench.inFlight, (job) =>
          queue.add(RUN_JOB_NAME, job, { jobId: job.runId }),
        );
      }
    } finally {
      await queue.close();
      await connection.quit();
    }
  };
}

async function bullmqProcess(bench: Bench, settings: Settings, jobs: number): Promise<void> {
  const connection = new Redis(bench.url, { maxRetriesPerRequest: null });
  const worker = new Worker(queueNameOf(settings.queues, 'snapshot'), async () => undefined, {
    connection,
    prefix: settings.redis.prefix,
    concurrency: settings.queues.snapshot.concurrency,
  });
  try {
    await waitUntilDrained(bench, settings, jobs);
  } finally {
    await worker.close();
    await connection.quit();
  }
}

async function pawEnqueue(
  bench: Bench,
  settings: Settings,
  fireTimes: readonly Date[],
): Promise<void> {
  const connection = new Redis(bench.url);
  const queues = new RunQueues(connection, settings);
  try {
    const firer = new RunFirer(
      new Outcomes(connection, settings.redis.prefix).runs,
      new RunProducer(queues, bench.logger),
      bench.logger,
    );
    await withInFlight(fireTimes, bench.inFlight, (fireTime) =>
      firer.fire(bench.definition, fireTime, 'cron'),
    );
  } finally {
    await queues.close();
    await connection.quit();
  }
}

/** paw's worker service as `paw worker` starts it, with the bench's no-op kind. */
async function pawProcess(bench: Bench, settings: Settings, jobs: number): Promise<void> {
  const shutdown = new Shutdown({ logger: bench.logger, graceMs: 5000 });
  try {
    const notifications = await openNotificationProducer({
      settings,
      logger: bench.logger,
      shutdown,
    });
    const metrics = new PawMetrics({ version: PAW_VERSION, role: 'worker' });
    const observers = workerObservers(metrics, notifications);
    const outcomes = await openOutcomes({
      settings,
      logger: bench.logger,
      shutdown,
      observer: observers.outcomes,
    });
    await startWorkerService({
      settings,
      logger: bench.logger,
      shutdown,
      outcomes,
      kinds: ['snapshot'],
      factories: { snapshot: noopProcessorFactory('snapshot') },
      observers,
    });
    await waitUntilDrained(bench, settings, jobs);
  } finally {
    await shutdown.run('bench over');
  }
}

/** Polls until no job is waiting or active (completed jobs are trimmed, so they cannot be counted). */
async function waitUntilDrained(bench: Bench, settings: Settings, jobs: number): Promise<void> {
  const queue = new Queue(queueNameOf(settings.queues, 'snapshot'), {
    connection: bench.admin,
    prefix: settings.redis.prefix,
  });
  try {
    let left = 0;
    await eventually(
      'every job processed',
      async () => {
        const counts = await queue.getJobCounts('wait', 'active', 'delayed', 'prioritized');
        left = Object.values(counts).reduce((sum, count) => sum + count, 0);
        return left === 0;
      },
      {
        timeoutMs: Math.max(60_000, jobs * 20),
        intervalMs: DRAIN_POLL_MS,
        detail: () => `${left} jobs still unprocessed`,
      },
    );
  } finally {
    await queue.close();
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
}

/** Per-job figures of one phase of one path: medians over the rounds. */
interface PhaseFigures {
  readonly path: PathName;
  readonly phase: PhaseName;
  readonly jobsPerSecond: number;
  readonly nodeCpuMsPer1000: number;
  readonly redisCpuMsPer1000: number;
  readonly redisCommandsPerJob: number;
  /** Lua scripts run per job (EVALSHA and EVAL; the commands they run are counted above too). */
  readonly luaScriptsPerJob: number;
  /** Redis commands per job by name (median round), largest first. */
  readonly commandsPerJob: Record<string, number>;
}

interface Overhead {
  readonly comparison: string;
  readonly nodeCpuUsPerJob: number;
  readonly redisCpuUsPerJob: number;
  readonly redisCommandsPerJob: number;
  readonly luaScriptsPerJob: number;
}

interface QueueReport {
  readonly context: ReturnType<typeof finishContext>;
  readonly setup: {
    jobs: number;
    rounds: number;
    inFlight: number;
    concurrency: number;
    pinning: string;
  };
  readonly phases: PhaseFigures[];
  readonly pawOverhead: Overhead[];
}

function summarise(
  context: ReturnType<typeof finishContext>,
  options: Options,
  pinning: string,
  results: ReadonlyMap<PathName, PhaseCost[][]>,
): QueueReport {
  const jobs = options.jobs;
  const phases: PhaseFigures[] = [];
  for (const path of PATHS) {
    const rounds = results.get(path) ?? [];
    PHASES.forEach((phase, index) => {
      const costs = rounds.map((round) => round[index]).filter((cost) => cost !== undefined);
      const commandTotals = costs.map((cost) => totalCalls(cost.commands));
      const middle = costs[commandTotals.indexOf(median(commandTotals))] ?? costs[0];
      phases.push({
        path,
        phase,
        jobsPerSecond: median(costs.map((cost) => jobs / (cost.wallMs / 1000))),
        nodeCpuMsPer1000: median(costs.map((cost) => (cost.nodeCpuMs * 1000) / jobs)),
        redisCpuMsPer1000: median(costs.map((cost) => (cost.redisCpuMs * 1000) / jobs)),
        redisCommandsPerJob: median(commandTotals) / jobs,
        luaScriptsPerJob:
          median(
            costs.map(
              (cost) => (cost.commands.get('evalsha') ?? 0) + (cost.commands.get('eval') ?? 0),
            ),
          ) / jobs,
        commandsPerJob: Object.fromEntries(
          [...(middle?.commands ?? new Map<string, number>())].map(([name, count]) => [
            name,
            round2(count / jobs),
          ]),
        ),
      });
    });
  }
  const figures = (path: PathName, phase: PhaseName) =>
    phases.find((entry) => entry.path === path && entry.phase === phase);
  const overhead = (phase: PhaseName, baseline: PathName): Overhead => {
    const paw = figures('paw', phase);
    const base = figures(baseline, phase);
    return {
      comparison: `${phase}: paw - ${baseline}`,
      nodeCpuUsPerJob: (paw?.nodeCpuMsPer1000 ?? NaN) - (base?.nodeCpuMsPer1000 ?? NaN),
      redisCpuUsPerJob: (paw?.redisCpuMsPer1000 ?? NaN) - (base?.redisCpuMsPer1000 ?? NaN),
      redisCommandsPerJob: (paw?.redisCommandsPerJob ?? NaN) - (base?.redisCommandsPerJob ?? NaN),
      luaScriptsPerJob: (paw?.luaScriptsPerJob ?? NaN) - (base?.luaScriptsPerJob ?? NaN),
    };
  };
  return {
    context,
    setup: {
      jobs,
      rounds: options.rounds,
      inFlight: options.inFlight,
      concurrency: settingsSchema.parse({}).queues.snapshot.concurrency,
      pinning,
    },
    phases,
    pawOverhead: [
      overhead('enqueue', 'bullmq add'),
      overhead('process', 'bullmq add'),
      overhead('total', 'bullmq add'),
      overhead('total', 'bullmq addBulk'),
    ],
  };
}

function print(report: QueueReport, markdown: boolean): void {
  const { setup } = report;
  const phaseTable = renderTable(
    [
      'path',
      'phase',
      'jobs/s',
      'node CPU ms/1000 jobs',
      'redis CPU ms/1000 jobs',
      'Redis cmds/job',
      'Lua scripts/job',
    ],
    report.phases.map((entry) => [
      entry.path,
      entry.phase,
      String(Math.round(entry.jobsPerSecond)),
      String(round1(entry.nodeCpuMsPer1000)),
      String(round1(entry.redisCpuMsPer1000)),
      String(round1(entry.redisCommandsPerJob)),
      String(round1(entry.luaScriptsPerJob)),
    ]),
    markdown,
  );
  const overheadTable = renderTable(
    ["paw's overhead per job", 'node CPU µs', 'redis CPU µs', 'Redis cmds', 'Lua scripts'],
    report.pawOverhead.map((entry) => [
      entry.comparison,
      `${entry.nodeCpuUsPerJob >= 0 ? '+' : ''}${Math.round(entry.nodeCpuUsPerJob)}`,
      `${entry.redisCpuUsPerJob >= 0 ? '+' : ''}${Math.round(entry.redisCpuUsPerJob)}`,
      `${entry.redisCommandsPerJob >= 0 ? '+' : ''}${round1(entry.redisCommandsPerJob)}`,
      `${entry.luaScriptsPerJob >= 0 ? '+' : ''}${round1(entry.luaScriptsPerJob)}`,
    ]),
    markdown,
  );
  const lines = [
    `queue benchmark: ${setup.jobs} no-op jobs per path, median of ${setup.rounds} round${setup.rounds === 1 ? '' : 's'}; ` +
      `worker concurrency ${setup.concurrency}, ${setup.inFlight} enqueue calls in flight (per-job paths)`,
    ...contextLines(report.context),
    `pinning: ${setup.pinning}`,
    '',
    phaseTable,
    '',
    overheadTable,
    '',
    'node CPU = this process (producers and workers run in it, one phase at a time); redis CPU = the ' +
      'redis-server process.',
    'Redis cmds = INFO commandstats, which counts the commands a Lua script runs as well as the ' +
      'EVALSHA itself (--json has them by name).',
    "paw's extra per job (the overhead table): at enqueue, the run record, written by the script " +
      'that adds the job (no script of its own); when processing, the one script that records the ' +
      "run's start with its end.",
    '',
  ];
  process.stdout.write(lines.join('\n'));
}
