import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { settingsSchema, type Settings } from '../../src/config/settings-schema.js';
import { jobDefinitionSchema, type JobDefinition } from '../../src/definitions/job-definition.js';
import { Shutdown } from '../../src/shared/shutdown.js';
import { silentLogger } from '../../src/shared/logger.js';
import { OutcomeQueries } from '../../src/outcomes/outcome-queries.js';
import type { ItemRow, RunRecord } from '../../src/outcomes/outcome-records.js';
import { Outcomes } from '../../src/outcomes/outcomes.js';
import { isActiveStatus } from '../../src/outcomes/outcome-status.js';
import { RunProducer } from '../../src/queue/run-producer.js';
import { RunQueues } from '../../src/queue/run-queues.js';
import { RunFirer } from '../../src/scheduler/run-firer.js';
import type { SimulatorHandle } from '../../src/simulator/simulator.js';
import { startSimulatorKit, type SimulatorKit } from './simulator-kit.js';
import type { SimulatorOptionsInput } from '../../src/simulator/options.js';
import { startWorkerService } from '../../src/cli/services/worker-service.js';
import { openOutcomes } from '../../src/cli/services/open-outcomes.js';
import { eventually } from './eventually.js';
import { FAST_PLATFORM, type PlatformLatency } from './platform-latency.js';
import { captureLogs, type LogCapture } from './log-capture.js';
import { PawProcess } from './paw-process.js';
import { redisContents } from './redis-contents.js';
import { createRedisConnection } from '../../src/redis/redis-connection.js';
import { connectTestRedis, testRedisUrl, uniquePrefix } from './redis-connection.js';

/**
 * Short waits everywhere, so a test of a whole night takes seconds: polls every 50–400 ms,
 * retries after 100 ms doubling to 1 s, a dead worker's jobs taken over within about 3 s; a run's
 * workloads in lanes of about 8, so that several workers share a run. The `paw` processes read
 * them from the kit's config/paw.yaml, an in-process worker gets them with the kit's Redis and
 * credentials ({@link settingsFor}).
 */
const FAST_SETTINGS = {
  queues: {
    snapshot: { concurrency: 5 },
    attempts: 5,
    backoff: { baseMs: 100, maxMs: 1000 },
  },
  worker: {
    lockDurationMs: 2000,
    stalledIntervalMs: 1000,
    maxStalledCount: 50,
    shutdownGraceMs: 5000,
    snapshotPoll: { minMs: 50, maxMs: 400 },
    snapshotLaneSize: 8,
    // Lanes by size alone (the platform's rate would make one): several lanes a run.
    snapshotLaneRequestsPerSecond: 0.001,
  },
  platform: {
    retry: { baseDelayMs: 20, maxDelayMs: 100 },
    activityDelayMs: 1500,
  },
  // The morning digest is due from 07:00 UTC by default: a process started later in the day
  // would post one to a test's webhook beside the run summaries the test counts. The tests of
  // the digest turn it on.
  coverage: { digest: { enabled: false } },
};

export interface InProcessWorker {
  readonly logs: LogCapture;
  stop(): Promise<void>;
}

/** A simulator, a Redis prefix, and the ways a test runs paw against them. */
export interface WorkerTestKit {
  readonly sim: SimulatorHandle;
  /** A call to the simulator's `/_sim` controls (the kit's). */
  readonly control: SimulatorKit['control'];
  readonly dir: string;
  readonly prefix: string;
  readonly redis: Redis;
  readonly outcomes: Outcomes;
  readonly queries: OutcomeQueries;
  readonly queues: RunQueues;
  /** The settings an in-process worker gets (the same as the processes' via config/paw.yaml). */
  settings(overrides?: Record<string, unknown>): Settings;
  /** The environment of a `paw` child process against this kit. */
  env(extra?: Record<string, string>): Record<string, string>;
  /** Writes definitions (YAML) into the kit's jobs folder. */
  writeJobs(yaml: string): Promise<void>;
  /** Fires a definition now, like `paw run` (a manual run), and returns the run id. */
  fire(definition: Record<string, unknown>): Promise<string>;
  /** Waits until the run has ended; fails after `timeoutMs` with what it knows. */
  waitForRun(runId: string, timeoutMs?: number): Promise<RunRecord>;
  items(runId: string): Promise<ItemRow[]>;
  /** A worker service in this process (its logs captured at debug level). */
  startInProcessWorker(overrides?: Record<string, unknown>): Promise<InProcessWorker>;
  /** `paw <args>` as a child process against this kit. */
  paw(args: readonly string[], extraEnv?: Record<string, string>): PawProcess;
  /**
   * Waits until the simulator has acted on every request it received (none still waiting out
   * its injected latency): then its counts (triggers above all) are what the platform did. Call
   * it once the processes that send requests have stopped.
   */
  platformSettled(): Promise<void>;
  /** Every key under the prefix with its value(s), as text to search for secrets. */
  dumpRedis(): Promise<string>;
  close(): Promise<void>;
}

export async function startWorkerTestKit(
  options: SimulatorOptionsInput = {},
  label = 'worker',
  /** Another Redis than the shared test one (a `redis+sentinel://` URL too); paw connects its way. */
  redisUrl = testRedisUrl(),
  /** How fast the simulator answers, and paw's settings for it (fast unless asked). */
  latency: PlatformLatency = FAST_PLATFORM,
): Promise<WorkerTestKit> {
  const kit = await startSimulatorKit(
    {
      timeScale: 600,
      jobs: { failureRate: 0, cancelRate: 0 },
      faults: latency.faults,
      ...options,
    },
    label,
  );
  const { sim, dir, credentialsFile } = kit;
  const fast = kitSettings(latency);
  await mkdir(join(dir, 'config'));
  await writeFile(join(dir, 'config', 'paw.yaml'), stringify(fast));
  await mkdir(join(dir, 'jobs'));
  const prefix = uniquePrefix(label);
  const base = settingsFor(fast, redisUrl, prefix, credentialsFile);
  const redis =
    redisUrl === testRedisUrl() ? connectTestRedis() : createRedisConnection(base.redis, 'worker');
  const queues = new RunQueues(redis, base);
  const outcomes = new Outcomes(redis, prefix);
  const queries = new OutcomeQueries(redis, prefix);
  const firer = new RunFirer(outcomes.runs, new RunProducer(queues), silentLogger());
  const processes: PawProcess[] = [];
  const inProcess: InProcessWorker[] = [];

  const settings = (overrides: Record<string, unknown> = {}): Settings =>
    settingsFor(fast, redisUrl, prefix, credentialsFile, overrides);

  return {
    sim,
    control: kit.control,
    dir,
    prefix,
    redis,
    outcomes,
    queries,
    queues,
    settings,
    env: (extra = {}) => ({
      PAW_REDIS_URL: redisUrl,
      PAW_REDIS_PREFIX: prefix,
      PAW_CREDENTIALS_FILE: credentialsFile,
      PAW_JOBS_DIR: join(dir, 'jobs'),
      PAW_LOG_LEVEL: 'debug',
      ...extra,
    }),
    writeJobs: async (yaml) => {
      await writeFile(join(dir, 'jobs', 'jobs.yaml'), yaml);
    },
    fire: async (definition) => {
      const parsed: JobDefinition = jobDefinitionSchema.parse(definition);
      const fired = await firer.fire(parsed, new Date(), 'manual');
      return fired.runId;
    },
    waitForRun: async (runId, timeoutMs = 60_000) =>
      eventually(
        `run ${runId} to end`,
        async () => {
          const run = await outcomes.runs.get(runId);
          return run !== undefined && !isActiveStatus(run.status) ? run : undefined;
        },
        {
          timeoutMs,
          intervalMs: 100,
          detail: async () => JSON.stringify(await outcomes.runs.get(runId)),
        },
      ),
    items: async (runId) => {
      const rows: ItemRow[] = [];
      for await (const row of queries.items({ runId })) rows.push(row);
      return rows;
    },
    startInProcessWorker: async (overrides = {}) => {
      const logs = captureLogs('debug');
      const shutdown = new Shutdown({ logger: logs.logger, graceMs: 5_000 });
      const own = settings(overrides);
      // As `paw worker` does: the process's outcomes first, so that they close after the workers.
      const outcomes = await openOutcomes({ settings: own, logger: logs.logger, shutdown });
      await startWorkerService({ settings: own, logger: logs.logger, shutdown, outcomes });
      const worker = { logs, stop: () => shutdown.run('test over') };
      inProcess.push(worker);
      return worker;
    },
    paw: (args, extraEnv = {}) => {
      const child = new PawProcess(args, {
        cwd: dir,
        env: {
          PAW_REDIS_URL: redisUrl,
          PAW_REDIS_PREFIX: prefix,
          PAW_CREDENTIALS_FILE: credentialsFile,
          PAW_JOBS_DIR: join(dir, 'jobs'),
          PAW_LOG_LEVEL: 'debug',
          ...extraEnv,
        },
      });
      processes.push(child);
      return child;
    },
    platformSettled: async () => {
      await eventually('the simulator to act on every request it received', () =>
        sim.stats().requestsDelayed === 0 ? true : undefined,
      );
    },
    dumpRedis: async () => (await redisContents(redis, `${prefix}*`)).text,
    close: async () => {
      await Promise.all(processes.map((child) => child.stop('SIGKILL')));
      await Promise.all(inProcess.map((worker) => worker.stop()));
      await queues.close();
      await redis.quit();
      await kit.close();
    },
  };
}

/**
 * The kit's settings at a platform's latency: FAST_SETTINGS, with the time paw gives an answer
 * (a trigger whose answer was lost is triggered again only once it could no longer show up,
 * src/job-kinds/snapshot/trigger-window.ts: its send window, this, and the activity delay).
 */
function kitSettings(latency: PlatformLatency) {
  return {
    ...FAST_SETTINGS,
    platform: { ...FAST_SETTINGS.platform, ...latency.settings.platform },
  };
}

function settingsFor(
  kitDefaults: ReturnType<typeof kitSettings>,
  url: string,
  prefix: string,
  credentialsFile: string,
  overrides: Record<string, unknown> = {},
): Settings {
  const fast: Record<string, unknown> = {
    ...kitDefaults,
    redis: { url, prefix },
    platform: { ...kitDefaults.platform, credentialsFile },
  };
  for (const [section, value] of Object.entries(overrides)) {
    fast[section] = { ...(fast[section] as object | undefined), ...(value as object) };
  }
  return settingsSchema.parse(fast);
}
