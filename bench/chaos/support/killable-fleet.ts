import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { settingsSchema, type Settings } from '../../../src/config/settings-schema.js';
import type { JobDefinition } from '../../../src/definitions/job-definition.js';
import { silentLogger } from '../../../src/log/logger.js';
import type { RunRecord } from '../../../src/outcomes/outcome-records.js';
import { OutcomeStore } from '../../../src/outcomes/outcome-store.js';
import { RunProducer } from '../../../src/queue/run-producer.js';
import { RunQueues } from '../../../src/queue/run-queues.js';
import { RunFirer } from '../../../src/scheduler/run-firer.js';
import { PawProcess } from '../../../test/support/paw-process.js';

/**
 * Real `paw` processes (workers, schedulers, `paw start`) sharing one Redis prefix, for chaos
 * scenarios that kill them: the environment they run with, firing a definition as the scheduler
 * would, waiting on the outcome store, and every process's output, kept after it died, for the
 * leak search. Like the tests' PawFleet, but given its Redis URL instead of Vitest's.
 */
export class KillableFleet {
  readonly prefix: string;
  readonly outcomes: OutcomeStore;
  readonly processes: PawProcess[] = [];
  private readonly queues: RunQueues;
  private readonly firer: RunFirer;

  private constructor(
    redis: Redis,
    redisUrl: string,
    private readonly cwd: string,
    private readonly baseEnv: Record<string, string>,
    label: string,
  ) {
    this.prefix = `chaos-${label}-${randomUUID().slice(0, 8)}`;
    const settings: Settings = settingsSchema.parse({
      redis: { url: redisUrl, prefix: this.prefix },
    });
    this.outcomes = new OutcomeStore(redis, this.prefix);
    this.queues = new RunQueues(redis, settings);
    this.firer = new RunFirer(this.outcomes, new RunProducer(this.queues), silentLogger());
  }

  /**
   * A fleet whose processes use `credentialsFile`, a prefix of their own, the given log level
   * (info by default), and short lock and stall intervals: a killed worker's job is taken over
   * within about a second.
   */
  static async create(
    redis: Redis,
    options: {
      redisUrl: string;
      dir: string;
      credentialsFile: string;
      label: string;
      env?: Record<string, string>;
    },
  ): Promise<KillableFleet> {
    const cwd = await mkdtemp(join(options.dir, `fleet-${options.label}-`));
    return new KillableFleet(
      redis,
      options.redisUrl,
      cwd,
      {
        PAW_REDIS_URL: options.redisUrl,
        PAW_CREDENTIALS_FILE: options.credentialsFile,
        PAW_LOG_LEVEL: 'info',
        PAW_WORKER_LOCK_DURATION_MS: '1000',
        PAW_WORKER_STALLED_INTERVAL_MS: '500',
        PAW_WORKER_SHUTDOWN_GRACE_MS: '2000',
        PAW_HTTP_PORT: '0',
        ...options.env,
      },
      options.label,
    );
  }

  /** Starts `paw <args>` with the fleet's environment (plus `env`) and waits until it is ready. */
  async start(args: readonly string[], env: Record<string, string> = {}): Promise<PawProcess> {
    const paw = new PawProcess(args, {
      cwd: this.cwd,
      env: { ...this.baseEnv, PAW_REDIS_PREFIX: this.prefix, ...env },
    });
    this.processes.push(paw);
    await paw.waitForStderr(/: ready/, 90_000);
    return paw;
  }

  /** Runs `paw <args>` to its end with the fleet's environment (a CLI command). */
  async command(
    args: readonly string[],
    env: Record<string, string> = {},
  ): Promise<{ code: number | null }> {
    const paw = new PawProcess(args, {
      cwd: this.cwd,
      env: { ...this.baseEnv, PAW_REDIS_PREFIX: this.prefix, ...env },
    });
    this.processes.push(paw);
    const { code } = await paw.exited;
    return { code };
  }

  /** Fires a definition now, as the scheduler would. Returns the run id. */
  async fire(definition: JobDefinition, fireTime = new Date()): Promise<string> {
    await this.queues.applyGlobalConcurrency();
    return (await this.firer.fire(definition, fireTime, 'manual', { ignoreOverlap: true })).runId;
  }

  /** Waits until the run is no longer queued or running (or `done` says so). */
  async waitForRun(
    runId: string,
    done: (run: RunRecord) => boolean = (run) => !['queued', 'running'].includes(run.status),
    timeoutMs = 90_000,
  ): Promise<RunRecord> {
    const started = Date.now();
    for (;;) {
      const run = await this.outcomes.getRun(runId);
      if (run !== undefined && done(run)) return run;
      if (Date.now() - started > timeoutMs) {
        throw new Error(
          `run ${runId} not done after ${timeoutMs} ms (status ${run?.status ?? 'none'}); ` +
            `last output:\n${this.processes
              .slice(-2)
              .map((paw) => paw.stderr.slice(-2000))
              .join('\n---\n')}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
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
}

/** Whether a paw process is still running. */
export function isRunning(paw: PawProcess): boolean {
  return paw.child.exitCode === null && paw.child.signalCode === null;
}
