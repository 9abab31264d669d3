import { parseArgs } from 'node:util';
import { settingsSchema } from '../src/config/settings-schema.js';
import { jobDefinitionSchema } from '../src/definitions/job-definition.js';
import type { PawFleet } from '../test/testkit/paw-fleet.js';
import type { PawProcess } from '../test/testkit/paw-process.js';
import { chaosFleet } from './chaos/support/chaos-fleet.js';
import { startKillBed, type KillBed } from './chaos/support/kill-bed.js';
import { eventually } from '../test/testkit/eventually.js';
import {
  benchContext,
  contextLines,
  finishContext,
  optionsOrUsage,
  percentile,
  progressReporter,
  renderTable,
  round1,
  writeJsonReport,
  type BenchContext,
} from './support/bench-report.js';

const USAGE = `usage: npm run bench -- takeover [options]

How long a snapshot item waits when the worker running it is killed with SIGKILL mid-trigger,
and whether the platform still saw exactly one trigger. Two paw worker processes share a
private redis-server and the simulator; each round fires a run of one VMware VM, both workers
armed to die at the crash point snapshot.after-trigger (the trigger has reached the platform,
its answer is not yet recorded: the most dangerous moment). Whichever worker takes the item
dies there; the other takes the item over once BullMQ finds it stalled (the dead worker's lock
expires after at most worker.lockDurationMs; a stall check runs every worker.stalledIntervalMs),
finds the trigger on the platform instead of sending another, and records its job id. A fresh
worker replaces the dead one before the next round.

Delay = when the item's job id is on record minus when the killed worker exited.

  --rounds N        kills to measure (default 10)
  --lock-ms N       worker.lockDurationMs of the workers (default: paw's default, LOCK_MS)
  --stalled-ms N    worker.stalledIntervalMs of the workers (default: paw's default, STALLED_MS)
  --markdown        print the table as Markdown
  --json FILE       also write every figure as JSON to FILE
  --help            this text

Exit 1 when a workload was triggered other than once or an item was not taken over within
60 s; 2 on bad usage.
`;

/** The crash point: after the platform accepted the trigger, before paw recorded its answer. */
const CRASH_POINT = 'snapshot.after-trigger';
/** A round that has not been taken over by then has failed. */
const ROUND_TIMEOUT_MS = 60_000;
const WORKER_ARGS = ['worker', '--kinds', 'snapshot'] as const;

interface Options {
  readonly rounds: number;
  readonly lockMs: number;
  readonly stalledMs: number;
  readonly markdown: boolean;
  readonly json: string | undefined;
}

function usage(): string {
  const defaults = settingsSchema.parse({}).worker;
  return USAGE.replace('LOCK_MS', String(defaults.lockDurationMs)).replace(
    'STALLED_MS',
    String(defaults.stalledIntervalMs),
  );
}

function parseOptions(args: string[]): Options | undefined {
  const { values } = parseArgs({
    args,
    options: {
      rounds: { type: 'string' },
      'lock-ms': { type: 'string' },
      'stalled-ms': { type: 'string' },
      markdown: { type: 'boolean', default: false },
      json: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) return undefined;
  const defaults = settingsSchema.parse({}).worker;
  const count = (name: string, text: string | undefined, fallback: number, min: number) => {
    if (text === undefined) return fallback;
    const value = Number(text);
    if (!Number.isInteger(value) || value < min) {
      throw new Error(`--${name} ${text}: expected a whole number of at least ${min}`);
    }
    return value;
  };
  // The same bounds as the settings themselves: a value paw would refuse is refused here too.
  const parsed = settingsSchema.safeParse({
    worker: {
      lockDurationMs: count('lock-ms', values['lock-ms'], defaults.lockDurationMs, 1),
      stalledIntervalMs: count('stalled-ms', values['stalled-ms'], defaults.stalledIntervalMs, 1),
    },
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const option = issue?.path.at(-1) === 'lockDurationMs' ? '--lock-ms' : '--stalled-ms';
    throw new Error(`${option}: ${issue?.message ?? 'not a valid value'} (as paw's own setting)`);
  }
  const { worker } = parsed.data;
  return {
    rounds: count('rounds', values.rounds, 10, 1),
    lockMs: worker.lockDurationMs,
    stalledMs: worker.stalledIntervalMs,
    markdown: values.markdown,
    json: values.json,
  };
}

/** One kill and what became of its item. */
interface Round {
  readonly workloadId: string;
  readonly runId: string;
  /** From the killed worker's exit to the item's job id on record (undefined: never). */
  readonly delayMs: number | undefined;
  /** Triggers the platform saw for the workload by the end of the round. */
  readonly triggers: number;
}

interface TakeoverReport {
  readonly context: BenchContext;
  readonly settings: { readonly lockDurationMs: number; readonly stalledIntervalMs: number };
  readonly rounds: readonly Round[];
  readonly delayMs: {
    readonly median: number;
    readonly p90: number;
    readonly max: number;
    readonly min: number;
  };
  /** Rounds whose workload was triggered other than exactly once. */
  readonly notOnce: number;
  /** Rounds whose item was not taken over within the round's time limit. */
  readonly notTakenOver: number;
}

export async function run(args: string[]): Promise<void> {
  const options = optionsOrUsage(args, parseOptions, usage());
  if (options === undefined) return;
  const context = benchContext('takeover', args);
  const progress = progressReporter('takeover');
  progress('starting the simulator and a private redis-server');
  // Jobs take a minute of platform time at 60× (about a second): the item is still running on
  // the platform when it is taken over, as a real snapshot would be.
  const bed = await startKillBed('takeover', {
    workloads: Math.max(40, options.rounds * 4),
    timeScale: 60,
    jobs: { failureRate: 0, cancelRate: 0 },
  });
  let fleet: PawFleet | undefined;
  try {
    fleet = await chaosFleet(bed.redis, {
      redisUrl: bed.redisUrl,
      dir: bed.dir,
      credentialsFile: bed.adminFile,
      label: 'takeover',
      env: {
        PAW_WORKER_LOCK_DURATION_MS: String(options.lockMs),
        PAW_WORKER_STALLED_INTERVAL_MS: String(options.stalledMs),
        PAW_CRASH_AT: CRASH_POINT,
      },
    });
    const workloads = await eligibleVms(bed, options.rounds);
    progress(
      `starting two workers (lock ${options.lockMs} ms, stall check every ${options.stalledMs} ms)`,
    );
    const workers = await Promise.all([fleet.start(WORKER_ARGS), fleet.start(WORKER_ARGS)]);
    const rounds: Round[] = [];
    for (const [index, workloadId] of workloads.entries()) {
      const round = await killOnce(fleet, bed, workers, workloadId, index);
      rounds.push(round);
      progress(
        `round ${index + 1}/${options.rounds}: ` +
          (round.delayMs === undefined
            ? `not taken over within ${ROUND_TIMEOUT_MS / 1000} s`
            : `taken over ${round1(round.delayMs / 1000)} s after the kill`) +
          `, ${round.triggers} trigger(s)`,
      );
      // The dead worker's replacement, armed as it was, before the next round.
      const dead = workers.findIndex((worker) => !worker.running);
      if (dead >= 0) workers[dead] = await fleet.start(WORKER_ARGS);
    }
    const report = summarise(finishContext(context), options, rounds);
    print(report, options.markdown);
    if (options.json !== undefined) await writeJsonReport(options.json, report);
    if (report.notOnce > 0 || report.notTakenOver > 0) process.exitCode = 1;
  } finally {
    await fleet?.stop();
    await bed.stop();
  }
}

/** The first `count` VMware VMs on connected clusters, from the platform's own list. */
async function eligibleVms(bed: KillBed, count: number): Promise<string[]> {
  const connected = new Set(
    bed.sim.clusters
      .filter((cluster) => cluster.connectionState === 'Connected')
      .map((cluster) => cluster.id),
  );
  const ids: string[] = [];
  for await (const workload of bed.admin.api.workloads.list({ type: 'VSPHERE_VM' })) {
    if (connected.has(workload.clusterId ?? '')) ids.push(workload.id);
    if (ids.length === count) return ids;
  }
  throw new Error(
    `the simulator has ${ids.length} VMware VMs on connected clusters, ${count} are needed`,
  );
}

/**
 * Fires a run of one workload; waits for the worker that takes it to die at the crash point,
 * then for the item's job id to be on record.
 */
async function killOnce(
  fleet: PawFleet,
  bed: KillBed,
  workers: readonly PawProcess[],
  workloadId: string,
  index: number,
): Promise<Round> {
  const definition = jobDefinitionSchema.parse({
    id: `takeover-${index + 1}`,
    kind: 'snapshot',
    schedule: { cron: '0 1 * * *', timezone: 'UTC' },
    targets: { ids: [workloadId] },
    retention: { slaDomainName: 'Gold' },
    maxWait: '1h',
  });
  const runId = await fleet.fire(definition);
  const deadline = Date.now() + ROUND_TIMEOUT_MS;
  const killedAt = await Promise.race([
    ...workers.map(async (worker) => {
      await worker.exited;
      return Date.now();
    }),
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ROUND_TIMEOUT_MS)),
  ]);
  if (killedAt === undefined) {
    throw new Error(`no worker reached ${CRASH_POINT} within ${ROUND_TIMEOUT_MS / 1000} s`);
  }
  const delayMs = await eventually(
    `${workloadId}'s snapshot to be taken over`,
    async () => {
      const item = await fleet.outcomes.items.get(runId, workloadId);
      return typeof item?.platformJobId === 'string' && Date.now() - killedAt;
    },
    // A 20 ms look: fine enough for delays of seconds, light on Redis.
    { timeoutMs: Math.max(0, deadline - Date.now()), intervalMs: 20, otherwise: () => undefined },
  );
  await fleet.waitForRun(runId);
  return {
    workloadId,
    runId,
    delayMs,
    triggers: bed.sim.stats().snapshotTriggers[workloadId] ?? 0,
  };
}

function summarise(context: BenchContext, options: Options, rounds: Round[]): TakeoverReport {
  const delays = rounds
    .map((round) => round.delayMs)
    .filter((delay): delay is number => delay !== undefined)
    .sort((a, b) => a - b);
  return {
    context,
    settings: { lockDurationMs: options.lockMs, stalledIntervalMs: options.stalledMs },
    rounds,
    delayMs: {
      median: percentile(delays, 50),
      p90: percentile(delays, 90),
      max: delays.at(-1) ?? Number.NaN,
      min: delays[0] ?? Number.NaN,
    },
    notOnce: rounds.filter((round) => round.triggers !== 1).length,
    notTakenOver: rounds.filter((round) => round.delayMs === undefined).length,
  };
}

function print(report: TakeoverReport, markdown: boolean): void {
  const seconds = (ms: number) => (Number.isNaN(ms) ? '-' : round1(ms / 1000).toFixed(1));
  const lines = [
    ...contextLines(report.context),
    '',
    renderTable(
      [
        'lock ms',
        'stall check ms',
        'kills',
        'delay median s',
        'p90 s',
        'max s',
        'min s',
        'triggered once',
        'not taken over',
      ],
      [
        [
          String(report.settings.lockDurationMs),
          String(report.settings.stalledIntervalMs),
          String(report.rounds.length),
          seconds(report.delayMs.median),
          seconds(report.delayMs.p90),
          seconds(report.delayMs.max),
          seconds(report.delayMs.min),
          `${report.rounds.length - report.notOnce}/${report.rounds.length}`,
          String(report.notTakenOver),
        ],
      ],
      markdown,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
