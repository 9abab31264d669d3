import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { settingsSchema, type Settings } from '../../../src/config/settings-schema.js';
import type { JobDefinition } from '../../../src/definitions/job-definition.js';
import { silentLogger } from '../../../src/log/logger.js';
import type { RunRecord } from '../../../src/outcomes/outcome-records.js';
import { OutcomeStore } from '../../../src/outcomes/outcome-store.js';
import { RunProducer } from '../../../src/queue/run-producer.js';
import { RunQueues } from '../../../src/queue/run-queues.js';
import { RunFirer } from '../../../src/scheduler/run-firer.js';
import { PawProcess } from '../../support/paw-process.js';
import { testRedisUrl, uniquePrefix } from '../../support/redis-connection.js';

/**
 * Real `paw` processes (workers, schedulers) sharing one Redis prefix, with what a test needs
 * around them: the environment they run with, a way to fire a definition as the scheduler
 * would, the outcome store to wait on, and every process's output for leak checks.
 */
export class PawFleet {
  readonly prefix: string;
  readonly settings: Settings;
  readonly outcomes: OutcomeStore;
  readonly processes: PawProcess[] = [];
  private readonly queues: RunQueues;
  private readonly firer: RunFirer;

  private constructor(
    private readonly redis: Redis,
    private readonly cwd: string,
    private readonly baseEnv: Record<string, string>,
    label: string,
  ) {
    this.prefix = uniquePrefix(label);
    this.settings = settingsSchema.parse({ redis: { url: testRedisUrl(), prefix: this.prefix } });
    this.outcomes = new OutcomeStore(redis, this.prefix);
    this.queues = new RunQueues(redis, this.settings);
    this.firer = new RunFirer(this.outcomes, new RunProducer(this.queues), silentLogger());
  }

  /**
   * A fleet whose processes use `credentialsFile`, a prefix of their own, debug logs, and
   * short lock and stall intervals (a killed worker's job is taken over within about a second).
   */
  static async create(
    redis: Redis,
    options: { credentialsFile: string; label: string; env?: Record<string, string> },
  ): Promise<PawFleet> {
    const cwd = await mkdtemp(join(tmpdir(), 'paw-fleet-'));
    const fleet = new PawFleet(
      redis,
      cwd,
      {
        PAW_REDIS_URL: testRedisUrl(),
        PAW_CREDENTIALS_FILE: options.credentialsFile,
        PAW_LOG_LEVEL: 'debug',
        PAW_WORKER_LOCK_DURATION_MS: '1000',
        PAW_WORKER_STALLED_INTERVAL_MS: '500',
        PAW_WORKER_SHUTDOWN_GRACE_MS: '2000',
        PAW_HTTP_PORT: '0',
        ...options.env,
      },
      options.label,
    );
    return fleet;
  }

  /** Starts `paw <args>` with the fleet's environment (plus `env`) and waits until it is ready. */
  async start(args: readonly string[], env: Record<string, string> = {}): Promise<PawProcess> {
    const paw = new PawProcess(args, {
      cwd: this.cwd,
      env: { ...this.baseEnv, PAW_REDIS_PREFIX: this.prefix, ...env },
    });
    this.processes.push(paw);
    await paw.waitForStderr(/: ready/, 60_000);
    return paw;
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
    timeoutMs = 60_000,
  ): Promise<RunRecord> {
    const started = Date.now();
    for (;;) {
      const run = await this.outcomes.getRun(runId);
      if (run !== undefined && done(run)) return run;
      if (Date.now() - started > timeoutMs) {
        throw new Error(
          `run ${runId} not done after ${timeoutMs} ms: ${JSON.stringify(run)}\n` +
            this.processes.map((paw) => paw.stderr.slice(-4000)).join('\n---\n'),
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Everything every process of the fleet printed. */
  output(): string {
    return this.processes.map((paw) => `${paw.stdout}\n${paw.stderr}`).join('\n');
  }

  /** Stops every process still running (SIGTERM, then waits) and closes the queues. */
  async stop(): Promise<void> {
    await Promise.all(this.processes.map((paw) => paw.stop()));
    await this.queues.close();
  }
}

/**
 * Every key under `prefix` and every value in it, as one text (strings, hashes, lists, sets,
 * sorted sets and streams), to look for secrets in.
 */
export async function redisContents(redis: Redis, prefix: string): Promise<string> {
  const parts: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    for (const key of keys) {
      parts.push(key);
      const type = await redis.type(key);
      if (type === 'string') parts.push((await redis.get(key)) ?? '');
      else if (type === 'hash') parts.push(JSON.stringify(await redis.hgetall(key)));
      else if (type === 'list') parts.push(JSON.stringify(await redis.lrange(key, 0, -1)));
      else if (type === 'set') parts.push(JSON.stringify(await redis.smembers(key)));
      else if (type === 'zset') parts.push(JSON.stringify(await redis.zrange(key, '0', '-1')));
      else if (type === 'stream') parts.push(JSON.stringify(await redis.xrange(key, '-', '+')));
    }
  } while (cursor !== '0');
  return parts.join('\n');
}
