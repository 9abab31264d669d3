import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { settingsSchema, type Settings } from '../../src/config/settings-schema.js';
import type { JobDefinition } from '../../src/definitions/job-definition.js';
import { silentLogger } from '../../src/shared/logger.js';
import type { RunRecord } from '../../src/outcomes/outcome-records.js';
import { Outcomes } from '../../src/outcomes/outcomes.js';
import { RunProducer } from '../../src/queue/run-producer.js';
import { RunQueues } from '../../src/queue/run-queues.js';
import { RunFirer } from '../../src/scheduler/run-firer.js';
import { eventually } from './eventually.js';
import { PawProcess } from './paw-process.js';

export interface PawFleetOptions {
  readonly redisUrl: string;
  /** The fleet's own key prefix. */
  readonly prefix: string;
  readonly credentialsFile: string;
  /** The folder the processes' working directory is made in. */
  readonly parentDir: string;
  readonly logLevel: string;
  /** How long a started process may take to say it is ready, and a run to end. */
  readonly readyTimeoutMs: number;
  readonly runTimeoutMs: number;
  /** More environment for every process (overrides the fleet's). */
  readonly env?: Record<string, string>;
}

/**
 * Real `paw` processes (workers, schedulers, `paw start`, CLI commands) sharing one Redis prefix,
 * with what a test or a chaos scenario needs around them: the environment they run with (short
 * lock and stall intervals, so a killed worker's job is taken over within about a second), firing
 * a definition as the scheduler would, waiting on the outcome store, and every process's output,
 * kept after it died, for leak checks. Free of Vitest: the tests (test/testkit/test-fleet.ts) and
 * the chaos suite (bench/chaos/support/chaos-fleet.ts) each make theirs with their own defaults.
 */
export class PawFleet {
  readonly prefix: string;
  readonly settings: Settings;
  readonly outcomes: Outcomes;
  readonly processes: PawProcess[] = [];
  private readonly queues: RunQueues;
  private readonly firer: RunFirer;

  private constructor(
    redis: Redis,
    private readonly cwd: string,
    private readonly baseEnv: Record<string, string>,
    private readonly options: PawFleetOptions,
  ) {
    this.prefix = options.prefix;
    this.settings = settingsSchema.parse({ redis: { url: options.redisUrl, prefix: this.prefix } });
    this.outcomes = new Outcomes(redis, this.prefix);
    this.queues = new RunQueues(redis, this.settings);
    this.firer = new RunFirer(this.outcomes.runs, new RunProducer(this.queues), silentLogger());
  }

  static async create(redis: Redis, options: PawFleetOptions): Promise<PawFleet> {
    const cwd = await mkdtemp(join(options.parentDir, 'paw-fleet-'));
    return new PawFleet(
      redis,
      cwd,
      {
        PAW_REDIS_URL: options.redisUrl,
        PAW_CREDENTIALS_FILE: options.credentialsFile,
        PAW_LOG_LEVEL: options.logLevel,
        PAW_WORKER_LOCK_DURATION_MS: '1000',
        PAW_WORKER_STALLED_INTERVAL_MS: '500',
        PAW_WORKER_SHUTDOWN_GRACE_MS: '2000',
        PAW_HTTP_PORT: '0',
        ...options.env,
      },
      options,
    );
  }

  /** Starts `paw <args>` with the fleet's environment (plus `env`) and waits until it is ready. */
  async start(args: readonly string[], env: Record<string, string> = {}): Promise<PawProcess> {
    const paw = this.spawn(args, env);
    await paw.waitForStderr(/: ready/, this.options.readyTimeoutMs);
    return paw;
  }

  /** Runs `paw <args>` to its end with the fleet's environment (a CLI command). */
  async command(
    args: readonly string[],
    env: Record<string, string> = {},
  ): Promise<{ code: number | null }> {
    const { code } = await this.spawn(args, env).exited;
    return { code };
  }

  /** Fires a definition now (or at `fireTime`), as the scheduler would. Returns the run id. */
  async fire(definition: JobDefinition, fireTime = new Date()): Promise<string> {
    await this.queues.applyGlobalConcurrency();
    return (await this.firer.fire(definition, fireTime, 'manual', { ignoreOverlap: true })).runId;
  }

  /** Waits until the run is no longer queued or running (or `done` says so). */
  async waitForRun(
    runId: string,
    done: (run: RunRecord) => boolean = (run) => !['queued', 'running'].includes(run.status),
    timeoutMs = this.options.runTimeoutMs,
  ): Promise<RunRecord> {
    return eventually(
      `run ${runId} to be done`,
      async () => {
        const run = await this.outcomes.runs.get(runId);
        return run !== undefined && done(run) ? run : undefined;
      },
      {
        timeoutMs,
        intervalMs: 100,
        detail: async () =>
          `${JSON.stringify(await this.outcomes.runs.get(runId))}\n` +
          this.processes.map((paw) => paw.stderr.slice(-4000)).join('\n---\n'),
      },
    );
  }

  /** Everything every process of the fleet printed, dead ones included. */
  output(): string {
    return this.processes.map((paw) => `${paw.stdout}\n${paw.stderr}`).join('\n');
  }

  /** Stops every process still running (SIGTERM, SIGKILL after 10 s) and closes the queues. */
  async stop(): Promise<void> {
    await Promise.all(
      this.processes.map(async (paw) => {
        const timer = setTimeout(() => paw.child.kill('SIGKILL'), 10_000);
        await paw.stop();
        clearTimeout(timer);
      }),
    );
    await this.queues.close();
  }

  private spawn(args: readonly string[], env: Record<string, string>): PawProcess {
    const paw = new PawProcess(args, {
      cwd: this.cwd,
      env: { ...this.baseEnv, PAW_REDIS_PREFIX: this.prefix, ...env },
    });
    this.processes.push(paw);
    return paw;
  }
}
