import { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { settingsSchema, type Settings } from '../../src/config/settings-schema.js';
import type { JobDefinition, JobKind } from '../../src/definitions/job-definition.js';
import { NO_CRASH_POINTS } from '../../src/shared/crash-points.js';
import type { RunRecord } from '../../src/outcomes/outcome-records.js';
import { Outcomes } from '../../src/outcomes/outcomes.js';
import { createPlatformClient, type PlatformClient } from '../../src/platform/platform-client.js';
import { RunProducer } from '../../src/queue/run-producer.js';
import { RunQueues, queueNameOf, workerOptionsFor } from '../../src/queue/run-queues.js';
import { RunFirer } from '../../src/scheduler/run-firer.js';
import type { SimulatorHandle } from '../../src/simulator/simulator.js';
import type { SimulatorOptionsInput } from '../../src/simulator/options.js';
import type { KindProcessor } from '../../src/queue/workers/kind-processor.js';
import { PROCESSOR_FACTORIES } from '../../src/job-kinds/processor-registry.js';
import type { WorkerResources } from '../../src/job-kinds/worker-resources.js';
import { eventually } from '../testkit/eventually.js';
import { captureLogs, type LogCapture } from '../testkit/log-capture.js';
import { startSimulatorKit, type SimulatorKit } from '../testkit/simulator-kit.js';
import { connectTestRedis, testRedisUrl, uniquePrefix } from '../testkit/redis-connection.js';

/**
 * A processor under test, for real: the simulator over HTTP, the test run's Redis under a
 * prefix of its own, the platform client, the outcome store and queues, and BullMQ Workers
 * around the processor, in this process. What is about processes (crashes) lives in tests that
 * start `paw` itself.
 */
export interface ProcessorHarness {
  readonly sim: SimulatorHandle;
  readonly dir: string;
  /** paw's own credentials file (the simulator's admin account). */
  readonly credentialsFile: string;
  readonly settings: Settings;
  readonly redis: Redis;
  readonly platform: PlatformClient;
  readonly outcomes: Outcomes;
  readonly queues: RunQueues;
  readonly logs: LogCapture;
  /** What a worker process shares among its processors, as the worker service opens it. */
  readonly dependencies: WorkerResources;
  /**
   * Worker resources whose platform client runs as the account in `credentialsFile` (the
   * harness's own are `dependencies`).
   */
  dependenciesFor(credentialsFile: string): Promise<WorkerResources>;
  /** The processor of `kind`, as the worker's registry makes it from `dependencies`. */
  processor(kind: JobKind, dependencies?: WorkerResources): KindProcessor;
  /** Runs a BullMQ Worker of `kind` around the processor the registry makes. */
  startWorker(kind: JobKind, dependencies?: WorkerResources): Promise<Worker>;
  /** Fires a definition as the scheduler would (run record + run job). Returns the run id. */
  fire(definition: JobDefinition, fireTime?: Date): Promise<string>;
  /** Waits until the run's record satisfies `done` (default: it is no longer queued or running). */
  waitForRun(
    runId: string,
    done?: (run: RunRecord) => boolean,
    timeoutMs?: number,
  ): Promise<RunRecord>;
  /** A call to the simulator's `/_sim` controls (the kit's). */
  readonly control: SimulatorKit['control'];
  close(): Promise<void>;
}

export async function startProcessorHarness(
  options: {
    readonly sim?: SimulatorOptionsInput;
    readonly settings?: Record<string, unknown>;
    readonly label?: string;
  } = {},
): Promise<ProcessorHarness> {
  const kit = await startSimulatorKit(options.sim, 'processors');
  const { sim, dir, credentialsFile } = kit;
  const settings = settingsSchema.parse({
    redis: { url: testRedisUrl(), prefix: uniquePrefix(options.label ?? 'proc') },
    platform: { credentialsFile },
    queues: { backoff: { baseMs: 200, maxMs: 2_000 } },
    ...options.settings,
  });
  const logs = captureLogs('debug');
  const redis = connectTestRedis();
  const platform = await createPlatformClient({ settings, logger: logs.logger });
  const outcomes = new Outcomes(redis, settings.redis.prefix);
  const queues = new RunQueues(redis, settings);
  await queues.applyGlobalConcurrency();
  const dependencies: WorkerResources = {
    settings,
    logger: logs.logger,
    platform,
    outcomes,
    queues,
    redis,
    crashPoints: NO_CRASH_POINTS,
    stopping: new AbortController().signal,
  };
  const firer = new RunFirer(outcomes.runs, new RunProducer(queues), logs.logger);
  const workers: Worker[] = [];
  const connections: Redis[] = [redis];
  const clients: PlatformClient[] = [platform];

  return {
    sim,
    dir,
    credentialsFile,
    settings,
    redis,
    platform,
    outcomes,
    queues,
    logs,
    dependencies,
    async dependenciesFor(file) {
      const own = settingsSchema.parse({
        ...settings,
        platform: { ...settings.platform, credentialsFile: file },
      });
      const client = await createPlatformClient({ settings: own, logger: logs.logger });
      clients.push(client);
      return { ...dependencies, settings: own, platform: client };
    },
    processor(kind, workerDependencies = dependencies) {
      return processorOf(kind, workerDependencies);
    },
    async startWorker(kind, workerDependencies = dependencies) {
      const processor = processorOf(kind, workerDependencies);
      const connection = connectTestRedis();
      connections.push(connection);
      const worker = new Worker(
        queueNameOf(settings.queues, kind),
        (job, token) => processor.process(job, token),
        { ...workerOptionsFor(settings, kind, connection), autorun: true },
      );
      worker.on('error', () => undefined);
      workers.push(worker);
      await worker.waitUntilReady();
      return worker;
    },
    async fire(definition, fireTime = new Date()) {
      const result = await firer.fire(definition, fireTime, 'manual', { ignoreOverlap: true });
      return result.runId;
    },
    async waitForRun(
      runId,
      done = (run) => !['queued', 'running'].includes(run.status),
      timeoutMs = 30_000,
    ) {
      return eventually(
        `run ${runId} to be done`,
        async () => {
          const run = await outcomes.runs.get(runId);
          return run !== undefined && done(run) ? run : undefined;
        },
        { timeoutMs },
      );
    },
    control: kit.control,
    async close() {
      await Promise.allSettled(workers.map((worker) => worker.close()));
      await queues.close();
      await Promise.allSettled(clients.map((client) => client.close()));
      await Promise.allSettled(connections.map((connection) => connection.quit()));
      await kit.close();
    },
  };
}

/** The processor of `kind` as a worker makes it: through the registry. */
function processorOf(kind: JobKind, resources: WorkerResources): KindProcessor {
  const factory = PROCESSOR_FACTORIES[kind];
  if (factory === undefined) throw new Error(`no processor for ${kind}`);
  return factory(resources);
}
