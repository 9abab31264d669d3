import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { ItemRecord, RunRecord } from '../../../src/outcomes/outcome-records.js';
import { isActiveStatus } from '../../../src/outcomes/outcome-status.js';
import { Outcomes } from '../../../src/outcomes/outcomes.js';
import type { JobScheduleReport } from '../../../src/simulator/job-schedule-report.js';
import type { SimulatorOptionsInput } from '../../../src/simulator/options.js';
import { PawChild, runPawCommand } from './paw-process.js';
import { settingsSchema } from '../../../src/config/settings-schema.js';
import { redisConnectionOptions } from '../../../src/redis/redis-options.js';
import { startSentinelRedis, type SentinelRedis } from '../../../test/testkit/sentinel-redis.js';
import { RedisProcess } from './redis-process.js';
import { eventually } from '../../../test/testkit/eventually.js';
import {
  startSimulatorProcess,
  type SimulatorProcess,
} from '../../../test/testkit/simulator-kit.js';

/** The two snapshot definitions of a chaos night: every VM, and every SQL Server database. */
const DEFINITIONS = [
  { id: 'chaos-vms', type: 'VSPHERE_VM', slaDomainName: 'Silver' },
  { id: 'chaos-sql', type: 'MSSQL_DATABASE', slaDomainName: 'Gold' },
] as const;

/** The Redis key prefix the night's paw processes use. */
const PREFIX = 'chaos';

/**
 * Short waits, so that a night of 2,000 snapshots takes a minute or two: a dead worker's jobs are
 * taken over within about 6 s, polls every 0.25–1.5 s, transient failures retried after 0.2 s
 * doubling to 2 s, platform requests given up after `headersMs` without an answer (3 s unless
 * the platform is slow: a hung request ends there). The request budget is high: the
 * simulator's own rate limit is what 429s come from.
 */
const chaosSettings = (
  headersMs: number,
): string => `# Written by the chaos suite (bench/chaos/support/snapshot-night.ts).
queues:
  snapshot: { concurrency: 20 }
  attempts: 5
  backoff: { baseMs: 200, maxMs: 2000 }
worker:
  lockDurationMs: 4000
  stalledIntervalMs: 2000
  maxStalledCount: 100
  shutdownGraceMs: 5000
  snapshotPoll: { minMs: 250, maxMs: 1500 }
platform:
  requestsPerSecond: 300
  retry: { baseDelayMs: 50, maxDelayMs: 400 }
  timeouts: { connectMs: 3000, headersMs: ${headersMs}, bodyMs: 3000 }
`;

export interface SnapshotNightOptions {
  /** Names the temporary folder (`paw-chaos-<label>-…`). */
  readonly label: string;
  /** Workloads in the simulator's inventory; about 60% are VMs and databases on a connected cluster. */
  readonly workloads: number;
  /** Simulator options beyond the inventory size (time scale, faults, job outcomes, rate limit). */
  readonly simulator?: SimulatorOptionsInput;
  /** Redis with its append-only file on (for scenarios that restart it). */
  readonly appendOnly?: boolean;
  /**
   * Redis behind Sentinel: a primary, its replica and three sentinels (for the failover
   * scenario); paw is given a redis+sentinel:// URL. Otherwise one redis-server.
   */
  readonly sentinel?: boolean;
  /** The interface paw uses (`platform.api`; REST unless said). */
  readonly api?: 'rest' | 'graphql';
  /** How long paw waits for an answer (default 3 s; longer on a platform answering in seconds). */
  readonly headersMs?: number;
  readonly progress: (line: string) => void;
}

/** Where a night stands, read from the outcome store (undefined while Redis is away). */
export interface NightProgress {
  readonly items: number;
  /** Items in a final status (succeeded, failed, timed-out, canceled, skipped). */
  readonly ended: number;
  readonly succeeded: number;
  readonly runsEnded: number;
}

/** What a night came to, checked against the simulator's own record of what it was asked. */
export interface NightJudgement {
  readonly passed: boolean;
  /** The problems found, each a short sentence (empty when passed). */
  readonly problems: string[];
  /** Eligible workloads (VMs and databases on connected clusters), per the platform's list. */
  readonly expected: number;
  readonly items: number;
  /** Eligible workloads whose one item has a final status. */
  readonly ended: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly otherEnded: number;
  /** Items still queued or running: not ended. */
  readonly open: number;
  /** Workloads the platform saw triggered more than once. */
  readonly twice: number;
  /** Eligible workloads without an ended item or without a trigger where one was needed. */
  readonly missed: number;
  /** Failed items without an error code and message. */
  readonly failedWithoutReason: number;
  /** Failed items by error code, e.g. { SNAPSHOT_FAILED: 30 }. */
  readonly failureCodes: Record<string, number>;
  /**
   * Items whose record disagrees with itself or with the platform: a `platformJobId` that is not
   * how the item is tracked (an activity's id beside a job's details, or the reverse), or a job
   * the platform never ran for that workload.
   */
  readonly inconsistent: number;
  readonly triggers: number;
}

/**
 * The stage of the chaos scenarios about snapshots: a temporary folder, a private Redis, the
 * simulator as a process, paw's settings and two snapshot definitions covering every VM and SQL
 * Server database on the connected clusters; then paw worker processes, runs fired with
 * `paw run`, progress read from the outcome store, and a judgement from `paw runs`,
 * `paw outcomes --export jsonl`, `paw workloads list` and the simulator's `/_sim/stats`.
 * Everything it starts is stopped by {@link close}, whatever happened before.
 */
export class SnapshotNight {
  private readonly workers: PawChild[] = [];
  private workerCount = 0;
  private runIds: string[] = [];

  private constructor(
    readonly dir: string,
    private readonly standalone: RedisProcess | undefined,
    /** The Sentinel set, when the night runs on one. */
    readonly sentinel: SentinelRedis | undefined,
    /** What paw is given as PAW_REDIS_URL. */
    readonly redisUrl: string,
    readonly sim: SimulatorProcess,
    private readonly observer: Redis,
    private readonly outcomes: Outcomes,
    private readonly say: (line: string) => void,
    private readonly api: 'rest' | 'graphql',
  ) {}

  /** The night's single redis-server (the restart and outage scenarios take it away). */
  get redis(): RedisProcess {
    if (this.standalone === undefined) throw new Error('this night runs on Redis Sentinel');
    return this.standalone;
  }

  static async start(options: SnapshotNightOptions): Promise<SnapshotNight> {
    const dir = await mkdtemp(join(tmpdir(), `paw-chaos-${options.label}-`));
    let redis: RedisProcess | undefined;
    let sentinel: SentinelRedis | undefined;
    let sim: SimulatorProcess | undefined;
    try {
      if (options.sentinel === true) sentinel = await startSentinelRedis();
      else redis = await RedisProcess.start({ appendOnly: options.appendOnly ?? false });
      const redisUrl = sentinel?.url ?? redis?.url ?? '';
      sim = await startSimulatorProcess(
        dir,
        {
          seed: 7,
          rateLimit: { requestsPerSecond: 0 },
          ...options.simulator,
          workloads: options.workloads,
        },
        { logFile: join(dir, 'sim.log') },
      );
      await mkdir(join(dir, 'config'));
      await writeFile(join(dir, 'config', 'paw.yaml'), chaosSettings(options.headersMs ?? 3_000));
      await mkdir(join(dir, 'jobs'));
      await writeFile(join(dir, 'jobs', 'night.yaml'), definitionsYaml(sim.connectedClusterIds()));
      // The suite's own view of the outcome store: it reconnects every 100 ms and fails commands
      // at once while Redis is away, so that "Redis is back" and "paw made progress" are seen
      // when they happen, not when a slower reconnect of this connection gets there.
      const observer = new Redis({
        ...redisConnectionOptions(settingsSchema.parse({ redis: { url: redisUrl } }).redis),
        lazyConnect: true,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        retryStrategy: () => 100,
      });
      observer.on('error', () => undefined);
      await observer.connect();
      options.progress(
        `simulator (pid ${sim.pid}) on ${sim.baseUrl}, ` +
          (sentinel === undefined
            ? `Redis on port ${redis?.port ?? '?'}${options.appendOnly === true ? ' (AOF on)' : ''}`
            : `Redis primary on port ${sentinel.primary.port}, replica on ${sentinel.replica.port}, three sentinels`) +
          `, folder ${dir}`,
      );
      return new SnapshotNight(
        dir,
        redis,
        sentinel,
        redisUrl,
        sim,
        observer,
        new Outcomes(observer, PREFIX),
        options.progress,
        options.api ?? 'rest',
      );
    } catch (error) {
      await sim?.stop();
      await redis?.close();
      await sentinel?.stop();
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** The environment of every paw process of the night. */
  env(): Record<string, string> {
    return {
      PAW_REDIS_URL: this.redisUrl,
      PAW_REDIS_PREFIX: PREFIX,
      PAW_CREDENTIALS_FILE: this.sim.credentialsFile,
      PAW_JOBS_DIR: join(this.dir, 'jobs'),
      PAW_LOG_LEVEL: 'info',
      PAW_PLATFORM_API: this.api,
    };
  }

  /** Starts `count` `paw worker` processes at once and waits until each is ready. */
  async startWorkers(count: number): Promise<PawChild[]> {
    return Promise.all(Array.from({ length: count }, () => this.startWorker()));
  }

  /** Starts a `paw worker` process (its log in the folder) and waits until it is ready. */
  async startWorker(extraEnv: Record<string, string> = {}): Promise<PawChild> {
    const worker = this.spawnWorker(extraEnv);
    await worker.waitForOutput(/paw worker: ready/, 60_000);
    return worker;
  }

  /** Starts a `paw worker` process without waiting for it (a replacement mid-night). */
  spawnWorker(extraEnv: Record<string, string> = {}): PawChild {
    const number = ++this.workerCount;
    const worker = new PawChild(['worker', '--kinds', 'snapshot'], {
      cwd: this.dir,
      env: { ...this.env(), ...extraEnv },
      logFile: join(this.dir, `worker-${number}.log`),
    });
    this.workers.push(worker);
    return worker;
  }

  /** The workers started so far that still run. */
  liveWorkers(): PawChild[] {
    return this.workers.filter((worker) => worker.running);
  }

  /** Fires both definitions now with `paw run <id> --json`; returns the run ids. */
  async fire(): Promise<string[]> {
    const fired = await Promise.all(
      DEFINITIONS.map(async (definition) => {
        const result = await runPawCommand(['run', definition.id, '--json'], {
          cwd: this.dir,
          env: this.env(),
        });
        if (result.code !== 0) {
          throw new Error(
            `paw run ${definition.id} exited ${result.code}: ${result.stderr.slice(-2_000)}`,
          );
        }
        return (JSON.parse(result.stdout) as { runId: string }).runId;
      }),
    );
    this.runIds.push(...fired);
    this.say(`fired ${this.runIds.join(', ')}`);
    return [...this.runIds];
  }

  /** Where the runs stand; undefined when Redis does not answer. */
  async progress(): Promise<NightProgress | undefined> {
    try {
      let items = 0;
      let ended = 0;
      let succeeded = 0;
      let runsEnded = 0;
      for (const runId of this.runIds) {
        const run = await this.outcomes.runs.get(runId);
        if (run === undefined) continue;
        items += run.counts.total;
        ended += run.counts.total - run.counts.queued - run.counts.running;
        succeeded += run.counts.succeeded;
        if (!isActiveStatus(run.status)) runsEnded++;
      }
      return { items, ended, succeeded, runsEnded };
    } catch {
      return undefined;
    }
  }

  /** Whether every fired run has ended. */
  async ended(): Promise<boolean> {
    const progress = await this.progress();
    return progress !== undefined && progress.runsEnded === this.runIds.length;
  }

  /**
   * Waits until every run has ended, printing progress every `everyMs`; `tick` runs about once a
   * second meanwhile (a scenario's mischief). Returns false when `timeoutMs` passes first.
   */
  async waitForEnd(
    timeoutMs: number,
    tick?: (elapsedMs: number) => Promise<void>,
    everyMs = 5_000,
  ): Promise<boolean> {
    const started = Date.now();
    let lastSaid = 0;
    return eventually(
      'every run to end',
      async () => {
        if (await this.ended()) return true;
        const elapsed = Date.now() - started;
        if (elapsed - lastSaid >= everyMs) {
          lastSaid = elapsed;
          this.say(`${(elapsed / 1000).toFixed(0)} s: ${describeProgress(await this.progress())}`);
        }
        await tick?.(elapsed);
        return false;
      },
      { timeoutMs, intervalMs: 1_000, otherwise: () => false },
    );
  }

  /**
   * Checks the night: every eligible workload has exactly one item and it ended; the platform saw
   * exactly one trigger for each (none for a workload paw never asked about), at most one for an
   * item that failed before a job existed; every failed item says why. `allowUntriggeredFailures`:
   * an item may fail without a trigger (injected faults exhausted its attempts), if it says why.
   */
  async judge(options: { allowUntriggeredFailures?: boolean } = {}): Promise<NightJudgement> {
    const problems: string[] = [];
    // Each paw command is a process of its own (a second or two to start): run them together.
    // What the platform acted on is counted once it has acted on all it received.
    await eventually(
      'the simulator to act on every request it received',
      async () => ((await this.sim.stats()).requestsDelayed === 0 ? true : undefined),
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    const [eligible, runs, itemsByRun, stats, jobs] = await Promise.all([
      this.eligibleWorkloads(),
      this.runs(),
      Promise.all(this.runIds.map((runId) => this.items(runId))),
      this.sim.stats(),
      this.sim.control('GET', '/_sim/jobs') as Promise<JobScheduleReport>,
    ]);
    const jobsOf = new Map<string, Set<string>>();
    for (const job of jobs.jobs) {
      jobsOf.set(job.workloadId, (jobsOf.get(job.workloadId) ?? new Set()).add(job.id));
    }
    const items = itemsByRun.flat();
    for (const runId of this.runIds) {
      const run = runs.find((candidate) => candidate.runId === runId);
      if (run === undefined) problems.push(`run ${runId} is not in \`paw runs\``);
      else if (isActiveStatus(run.status)) problems.push(`run ${runId} is still ${run.status}`);
    }
    const triggers = stats.snapshotTriggers;

    const byTarget = new Map<string, ItemRecord[]>();
    for (const item of items) {
      const key = item.target ?? item.itemKey;
      byTarget.set(key, [...(byTarget.get(key) ?? []), item]);
    }
    let twice = 0;
    let missed = 0;
    let failedWithoutReason = 0;
    let inconsistent = 0;
    let open = 0;
    let succeeded = 0;
    let failed = 0;
    let otherEnded = 0;
    const failureCodes: Record<string, number> = {};
    const examples: string[] = [];
    const note = (text: string): void => {
      if (examples.length < 5) examples.push(text);
    };
    for (const workloadId of eligible) {
      const mine = byTarget.get(workloadId) ?? [];
      const sent = triggers[workloadId] ?? 0;
      if (sent > 1) {
        twice++;
        note(`${workloadId} triggered ${sent} times`);
      }
      if (mine.length !== 1) {
        missed++;
        note(`${workloadId} has ${mine.length} items`);
        continue;
      }
      const item = mine[0] as ItemRecord;
      const disagreement = trackingDisagreement(item, jobsOf.get(workloadId));
      if (disagreement !== undefined) {
        inconsistent++;
        note(`${workloadId}: ${disagreement}`);
      }
      if (isActiveStatus(item.status)) {
        open++;
        missed++;
        note(`${workloadId} is still ${item.status}`);
        continue;
      }
      if (item.status === 'succeeded') succeeded++;
      else if (item.status === 'failed') failed++;
      else otherEnded++;
      if (item.status === 'failed') {
        const code = item.errorCode ?? '(none)';
        failureCodes[code] = (failureCodes[code] ?? 0) + 1;
        if (item.errorCode === undefined || (item.errorMessage ?? '') === '') {
          failedWithoutReason++;
          note(`${workloadId} failed without a reason`);
        }
      }
      const mayLackTrigger = item.status === 'failed' && options.allowUntriggeredFailures === true;
      if (sent === 0 && !mayLackTrigger) {
        missed++;
        note(`${workloadId} is ${item.status} but was never triggered`);
      }
    }
    const strangers = Object.keys(triggers).filter((id) => !eligible.has(id));
    if (strangers.length > 0)
      problems.push(`${strangers.length} workloads triggered that no run covers`);
    if (items.length !== eligible.size) {
      problems.push(`${items.length} items for ${eligible.size} eligible workloads`);
    }
    if (twice > 0) problems.push(`${twice} workloads triggered more than once`);
    if (missed > 0)
      problems.push(`${missed} workloads missed (not ended, no item, or never triggered)`);
    if (failedWithoutReason > 0)
      problems.push(`${failedWithoutReason} failed items without a reason`);
    if (inconsistent > 0)
      problems.push(`${inconsistent} records whose job id is not how they are tracked`);
    if (examples.length > 0) problems.push(`e.g. ${examples.join('; ')}`);
    return {
      passed: problems.length === 0,
      problems,
      expected: eligible.size,
      items: items.length,
      ended: succeeded + failed + otherEnded,
      succeeded,
      failed,
      otherEnded,
      open,
      twice,
      missed,
      failedWithoutReason,
      failureCodes,
      inconsistent,
      triggers: Object.values(triggers).reduce((sum, count) => sum + count, 0),
    };
  }

  /** VMs and databases on connected clusters, from `paw workloads list --all --json`. */
  private async eligibleWorkloads(): Promise<Set<string>> {
    const result = await this.paw(['workloads', 'list', '--all', '--json']);
    // `kind` is paw's word for the type whichever API answered (`type` is that API's own word).
    const workloads = JSON.parse(result) as { id: string; kind: string; clusterId: string }[];
    const connected = new Set(this.sim.connectedClusterIds());
    const types = new Set<string>(DEFINITIONS.map((definition) => definition.type));
    return new Set(
      workloads
        .filter((workload) => types.has(workload.kind) && connected.has(workload.clusterId))
        .map((workload) => workload.id),
    );
  }

  private async runs(): Promise<RunRecord[]> {
    return JSON.parse(await this.paw(['runs', '--json'])) as RunRecord[];
  }

  private async items(runId: string): Promise<ItemRecord[]> {
    const text = await this.paw(['outcomes', '--run', runId, '--export', 'jsonl']);
    return text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as ItemRecord);
  }

  private async paw(args: string[]): Promise<string> {
    const result = await runPawCommand(args, { cwd: this.dir, env: this.env() });
    if (result.code !== 0) {
      throw new Error(
        `paw ${args.join(' ')} exited ${result.code}: ${result.stderr.slice(-2_000)}`,
      );
    }
    return result.stdout;
  }

  /**
   * Stops every process it started (workers with SIGKILL: their state is Redis's, and a scenario
   * is over), the simulator and Redis, and removes the folder unless `keep` (to read the logs).
   */
  async close(keep = false): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.stop('SIGKILL')));
    this.observer.disconnect();
    await this.sim.stop();
    await this.standalone?.close();
    await this.sentinel?.stop();
    if (keep) this.say(`logs kept in ${this.dir}`);
    else await rm(this.dir, { recursive: true, force: true });
  }
}

/**
 * How a night's snapshots ended, as a verdict says it: "2022/2022 snapshots ended (1933
 * succeeded, 71 failed, 18 canceled/other, as the platform decided)".
 */
export function describeEndings(judgement: NightJudgement): string {
  return (
    `${judgement.ended}/${judgement.expected} snapshots ended (${judgement.succeeded} succeeded, ` +
    `${judgement.failed} failed, ${judgement.otherEnded} canceled/other, as the platform decided)`
  );
}

/** A progress line: "1234/2000 items ended (1200 succeeded), 0/2 runs ended". */
export function describeProgress(progress: NightProgress | undefined): string {
  if (progress === undefined) return 'outcome store unreachable';
  return `${progress.ended}/${progress.items} items ended (${progress.succeeded} succeeded), ${progress.runsEnded}/${DEFINITIONS.length} runs ended`;
}

/**
 * Why an item's record disagrees with itself or the platform (undefined when it agrees): an item
 * followed through activity keeps that activity's id as its job id; one followed through a job
 * keeps a job the platform ran for its workload; one that never learnt how to follow its
 * snapshot keeps none. `jobs`: the platform's job ids of the workload.
 */
function trackingDisagreement(
  item: ItemRecord,
  jobs: ReadonlySet<string> | undefined,
): string | undefined {
  const details = item.details ?? {};
  const via = details['trackedVia'];
  const jobId = item.platformJobId;
  if (via === 'activity') {
    const expected =
      typeof details['activityId'] === 'string'
        ? details['activityId']
        : `activity@${String(details['activitySince'])}`;
    return jobId === expected
      ? undefined
      : `followed through activity ${expected}, job id ${String(jobId)}`;
  }
  if (via === 'job') {
    if (jobId === undefined) return 'followed through a job without a job id';
    return jobs?.has(jobId) === true
      ? undefined
      : `job id ${jobId} is not a job the platform ran for it`;
  }
  return jobId === undefined ? undefined : `job id ${jobId} without tracking details`;
}

function definitionsYaml(connectedClusterIds: readonly string[]): string {
  const clusters = connectedClusterIds.map((id) => JSON.stringify(id)).join(', ');
  return DEFINITIONS.map(
    (definition) => `id: ${definition.id}
kind: snapshot
description: every ${definition.type} on the connected clusters (chaos suite)
schedule: { cron: '0 1 * * *', timezone: UTC }
targets: { types: [${definition.type}], clusterIds: [${clusters}] }
retention: { slaDomainName: ${definition.slaDomainName} }
maxWait: 1h
`,
  ).join('---\n');
}
