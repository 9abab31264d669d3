import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { settingsSchema } from '../src/config/settings-schema.js';
import { Outcomes } from '../src/outcomes/outcomes.js';
import { runIdFor } from '../src/queue/run-id.js';
import { queueNameOf } from '../src/queue/run-queues.js';
import { startPrivateRedisServer } from '../src/redis/private-redis-server.js';
import { CronSchedule } from '../src/definitions/schedule/cron-schedule.js';
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
} from './support/bench-report.js';
import { processCpuMs } from './support/process-cpu.js';
import { SchedulerReplica } from './support/scheduler-replica.js';
import { eventually } from '../test/testkit/eventually.js';

const USAGE = `usage: npm run bench -- scheduler [options]

Three real scheduler replicas (node bin/paw.js scheduler) against a private redis-server, with
job definitions that fire every second: how late each fire is enqueued, and whether any fire is
enqueued twice or never. The measured window starts a couple of seconds after every replica is
ready and holds DEFINITIONS x SECONDS fires (20 x 50 = 1,000 by default); the expected run ids
come from the schedule (run id = definition id + fire time = BullMQ job id), so misses and
duplicates are exact. No workers run: the jobs stay waiting.

  --replicas N       scheduler processes (default 3)
  --definitions N    definitions, each firing every second (default 20)
  --seconds N        length of the measured window in seconds (default 50)
  --kill             SIGKILL one replica halfway through the window, while it holds a lease,
                     and report the fires before and after separately (failover takes up to
                     scheduler.leaseMs, then the next tick)
  --lease-ms N       scheduler.leaseMs for the replicas (default: paw's default, 2500)
  --quick            10 definitions x 10 seconds (100 fires)
  --markdown         print the table as Markdown
  --json FILE        also write every figure as JSON to FILE
  --cpu-prof DIR     write a V8 CPU profile of every replica into DIR (node --cpu-prof)
  --help             this text

Fire-to-enqueue latency = the time Redis stored the BullMQ job (the id of its "added" event)
minus the scheduled fire time. Duplicates: run ids that two replicas each enqueued, BullMQ jobs
added twice for one run id, and adds BullMQ ignored because the job existed. Exit 1 when a fire
was missed or a job was added twice, 2 on bad usage.
`;

const PREFIX = 'bench';
const EVERY_SECOND = '* * * * * *';

interface Options {
  replicas: number;
  definitions: number;
  seconds: number;
  kill: boolean;
  leaseMs: number;
  markdown: boolean;
  json: string | undefined;
  cpuProfileDir: string | undefined;
}

function parseOptions(args: string[]): Options | undefined {
  const { values } = parseArgs({
    args,
    options: {
      replicas: { type: 'string' },
      definitions: { type: 'string' },
      seconds: { type: 'string' },
      kill: { type: 'boolean', default: false },
      'lease-ms': { type: 'string' },
      quick: { type: 'boolean', default: false },
      markdown: { type: 'boolean', default: false },
      json: { type: 'string' },
      'cpu-prof': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) return undefined;
  const defaults = settingsSchema.parse({});
  const count = (name: string, text: string | undefined, fallback: number, min: number) => {
    if (text === undefined) return fallback;
    const value = Number(text);
    if (!Number.isInteger(value) || value < min) {
      throw new Error(`--${name} ${text}: expected a whole number of at least ${min}`);
    }
    return value;
  };
  return {
    replicas: count('replicas', values.replicas, 3, 1),
    definitions: count('definitions', values.definitions, values.quick ? 10 : 20, 1),
    seconds: count('seconds', values.seconds, values.quick ? 10 : 50, 2),
    kill: values.kill,
    leaseMs: count('lease-ms', values['lease-ms'], defaults.scheduler.leaseMs, 1000),
    markdown: values.markdown,
    json: values.json,
    cpuProfileDir: values['cpu-prof'] === undefined ? undefined : resolve(values['cpu-prof']),
  };
}

/** One fire of the measured window, and what became of it. */
interface Fire {
  readonly definitionId: string;
  readonly runId: string;
  readonly fireMs: number;
  /** When Redis stored its job (the `added` event), or the job's own timestamp without one. */
  enqueuedMs?: number;
  /** Jobs BullMQ added under this run id (more than one would be a duplicate job). */
  added: number;
  /** Adds BullMQ ignored because the job already existed. */
  ignoredAdds: number;
  /** Replicas whose log says they enqueued it (`fire enqueued` or `fire re-enqueued`). */
  enqueuedBy: string[];
  recordedMissed: boolean;
}

export async function run(args: string[]): Promise<void> {
  const options = optionsOrUsage(args, parseOptions, USAGE);
  if (options === undefined) return;
  const context = benchContext('scheduler', args);
  const progress = progressReporter('scheduler');
  const queueName = queueNameOf(settingsSchema.parse({}).queues, 'snapshot');
  const ids = Array.from(
    { length: options.definitions },
    (_, i) => `bench-${String(i).padStart(3, '0')}`,
  );

  progress(`starting a private redis-server and ${options.replicas} scheduler replicas`);
  const server = await startPrivateRedisServer();
  const redis = new Redis(server.url);
  const dir = await mkdtemp(join(tmpdir(), 'paw-bench-scheduler-'));
  const replicas: SchedulerReplica[] = [];
  try {
    await mkdir(join(dir, 'config'));
    await mkdir(join(dir, 'jobs'));
    // Health and metrics off: three replicas on one machine would share port 8090.
    await writeFile(join(dir, 'config', 'paw.yaml'), 'http: { port: 0 }\n');
    await writeFile(join(dir, 'jobs', 'bench.yaml'), definitionsYaml(ids));
    const env = {
      PAW_CONFIG_DIR: join(dir, 'config'),
      PAW_JOBS_DIR: join(dir, 'jobs'),
      PAW_REDIS_URL: server.url,
      PAW_REDIS_PREFIX: PREFIX,
      PAW_LOG_LEVEL: 'info',
      PAW_SCHEDULER_LEASE_MS: String(options.leaseMs),
    };
    for (let index = 0; index < options.replicas; index++) {
      replicas.push(
        new SchedulerReplica(
          `replica ${index + 1}`,
          env,
          options.cpuProfileDir === undefined
            ? []
            : ['--cpu-prof', '--cpu-prof-dir', options.cpuProfileDir],
        ),
      );
    }
    await Promise.all(replicas.map((replica) => replica.ready(120_000)));

    // The window starts on a whole second, two seconds after the last replica is ready.
    const windowStart = Math.ceil(Date.now() / 1000) * 1000 + 2000;
    const windowEnd = windowStart + options.seconds * 1000; // exclusive
    const fires = expectedFires(ids, windowStart, windowEnd);
    if (fires.length !== options.definitions * options.seconds) {
      throw new Error(
        `expected ${options.definitions * options.seconds} fires, the schedule gives ${fires.length}`,
      );
    }
    progress(
      `${options.replicas} replicas ready; measuring ${fires.length} fires from ` +
        `${new Date(windowStart).toISOString()} to ${new Date(windowEnd - 1000).toISOString()}`,
    );

    const killAt = options.kill ? windowStart + Math.floor(options.seconds / 2) * 1000 : undefined;
    let kill: KillReport | undefined;
    const deadline = windowEnd + 10_000 + (options.kill ? options.leaseMs : 0);
    let lastProgress = 0;
    // CPU time of each replica and of redis-server over the measurement (a killed replica's
    // up to its last sample).
    const cpuStart = replicas.map((replica) => processCpuMs(replica.pid));
    const cpuLast = [...cpuStart];
    const redisCpuStart = processCpuMs(server.pid);
    const measureStart = Date.now();
    for (;;) {
      const now = Date.now();
      replicas.forEach((replica, index) => {
        if (replica.running) cpuLast[index] = processCpuMs(replica.pid);
      });
      if (killAt !== undefined && kill === undefined && now >= killAt) {
        const victim = replicas[0];
        if (victim !== undefined) kill = await killHoldingLease(redis, victim, ids, windowStart);
        progress(
          `SIGKILLed ${kill?.replica ?? '?'} at +${round1((kill?.atMs ?? 0) / 1000)} s` +
            (kill?.leasesHeld.length
              ? `, holding the lease of ${describeLeases(kill.leasesHeld)}`
              : ', holding no lease'),
        );
      }
      const present = await countPresent(redis, queueName, fires);
      if (now - lastProgress >= 5000) {
        lastProgress = now;
        progress(`${present}/${fires.length} fires of the window enqueued`);
      }
      if (now >= windowEnd + 2000 && (present === fires.length || now >= deadline)) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }

    replicas.forEach((replica, index) => {
      if (replica.running) cpuLast[index] = processCpuMs(replica.pid);
    });
    const cpu: CpuReport = {
      seconds: round1((Date.now() - measureStart) / 1000),
      replicasMs: Object.fromEntries(
        replicas.map((replica, index) => [
          replica.name,
          Math.round((cpuLast[index] ?? 0) - (cpuStart[index] ?? 0)),
        ]),
      ),
      redisServerMs: Math.round(processCpuMs(server.pid) - redisCpuStart),
    };
    progress('stopping the replicas (SIGTERM)');
    await Promise.all(replicas.map((replica) => replica.stop('SIGTERM')));
    await collect(redis, queueName, fires, replicas);
    const report = summarise(finishContext(context), options, fires, replicas, kill, cpu);
    print(report, options.markdown);
    if (options.json !== undefined) await writeJsonReport(options.json, report);
    if (report.total.missed > 0 || report.total.duplicateJobs > 0) process.exitCode = 1;
  } finally {
    await Promise.all(replicas.map((replica) => replica.stop('SIGKILL')));
    await redis.quit().catch(() => redis.disconnect());
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The definitions whose lease a killed replica held, listed when few. */
function describeLeases(ids: readonly string[]): string {
  if (ids.length <= 4) return ids.join(', ');
  return `${ids.length} definitions (${ids[0] ?? ''} … ${ids.at(-1) ?? ''})`;
}

/** The bench's definitions: snapshots every second, `overlap: allow` (no worker ends a run). */
function definitionsYaml(ids: readonly string[]): string {
  return ids
    .map(
      (id) =>
        `id: ${id}\nkind: snapshot\nschedule: { cron: '${EVERY_SECOND}', allowSubMinute: true, timezone: UTC, overlap: allow }\n` +
        `targets: { types: [VSPHERE_VM] }\nretention: { slaDomainName: Gold }\n`,
    )
    .join('---\n');
}

/** Every fire of every definition in [start, end), from the schedule itself. */
function expectedFires(ids: readonly string[], start: number, end: number): Fire[] {
  const schedule = CronSchedule.create(EVERY_SECOND, 'UTC');
  const times = schedule.firesBetween(new Date(start - 1), new Date(end - 1));
  return ids.flatMap((definitionId) =>
    times.map((time) => ({
      definitionId,
      runId: runIdFor(definitionId, time, 'cron'),
      fireMs: time.getTime(),
      added: 0,
      ignoredAdds: 0,
      enqueuedBy: [],
      recordedMissed: false,
    })),
  );
}

function jobKey(queueName: string, runId: string): string {
  return `${PREFIX}:${queueName}:${runId}`;
}

async function countPresent(
  redis: Redis,
  queueName: string,
  fires: readonly Fire[],
): Promise<number> {
  const pipeline = redis.pipeline();
  for (const fire of fires) pipeline.exists(jobKey(queueName, fire.runId));
  const results = (await pipeline.exec()) ?? [];
  return results.filter(([, value]) => value === 1).length;
}

interface KillReport {
  readonly replica: string;
  readonly pid: number;
  /** When it was killed, ms after the window start. */
  readonly atMs: number;
  /** Definitions whose lease it held at that moment: their fires wait for the lease to expire. */
  readonly leasesHeld: string[];
}

/**
 * SIGKILLs `victim` the moment it holds a definition's lease (the worst case: the fires of that
 * definition wait for the lease to expire), or after 5 s of waiting for one.
 */
async function killHoldingLease(
  redis: Redis,
  victim: SchedulerReplica,
  ids: readonly string[],
  windowStart: number,
): Promise<KillReport> {
  const owner = `${hostname()}/${victim.pid}/`;
  const keys = ids.map((id) => `${PREFIX}:scheduler:lease:${id}`);
  const held = await eventually(
    `${victim.name} to hold a lease`,
    async () => {
      const holders = await redis.mget(...keys);
      const holding = ids.filter((_, index) => holders[index]?.startsWith(owner) === true);
      return holding.length > 0 ? holding : undefined;
    },
    // Leases are held for a few milliseconds per tick: a 2 ms poll catches one without hammering Redis.
    { timeoutMs: 5000, intervalMs: 2, otherwise: (): string[] => [] },
  );
  victim.child.kill('SIGKILL');
  const atMs = Date.now() - windowStart;
  await victim.exited;
  return { replica: victim.name, pid: victim.pid, atMs, leasesHeld: held };
}

/** Reads what became of each fire: BullMQ's event stream and jobs, the outcome store, the logs. */
async function collect(
  redis: Redis,
  queueName: string,
  fires: Fire[],
  replicas: readonly SchedulerReplica[],
): Promise<void> {
  const byRunId = new Map(fires.map((fire) => [fire.runId, fire]));
  const events = await redis.xrange(`${PREFIX}:${queueName}:events`, '-', '+');
  for (const [id, fields] of events) {
    const field = (name: string) => fields[fields.indexOf(name) + 1];
    const fire = byRunId.get(field('jobId') ?? '');
    if (fire === undefined) continue;
    const event = field('event');
    if (event === 'added') {
      fire.added++;
      fire.enqueuedMs ??= Number(id.split('-')[0]);
    } else if (event === 'duplicated') {
      fire.ignoredAdds++;
    }
  }
  // A job whose "added" event was trimmed from the stream still has its own timestamp.
  const pipeline = redis.pipeline();
  for (const fire of fires) pipeline.hget(jobKey(queueName, fire.runId), 'timestamp');
  const timestamps = (await pipeline.exec()) ?? [];
  fires.forEach((fire, index) => {
    const timestamp = timestamps[index]?.[1];
    if (fire.enqueuedMs === undefined && typeof timestamp === 'string') {
      fire.enqueuedMs = Number(timestamp);
      fire.added = Math.max(fire.added, 1);
    }
  });
  const store = new Outcomes(redis, PREFIX);
  for (const fire of fires) {
    if (fire.enqueuedMs !== undefined) continue;
    fire.recordedMissed = (await store.runs.get(fire.runId))?.status === 'missed';
  }
  for (const replica of replicas) {
    for (const record of replica.logRecords()) {
      const message = record['msg'];
      if (message !== 'fire enqueued' && message !== 'fire re-enqueued') continue;
      byRunId.get(String(record['runId']))?.enqueuedBy.push(replica.name);
    }
  }
}

interface SliceFigures {
  readonly fires: string;
  readonly expected: number;
  readonly enqueued: number;
  readonly missed: number;
  /** Fires recorded in the outcome store as missed (a subset of `missed`). */
  readonly recordedMissed: number;
  /** Run ids that more than one replica enqueued (the second add was ignored by BullMQ). */
  readonly enqueuedTwice: number;
  /** Extra jobs BullMQ stored for one run id: must be 0. */
  readonly duplicateJobs: number;
  /** Adds BullMQ ignored because the job existed. */
  readonly ignoredAdds: number;
  readonly latencyMs: { median: number; p99: number; max: number };
  /** Fires enqueued more than a second after their time. */
  readonly laterThan1s: number;
}

function sliceFigures(label: string, fires: readonly Fire[]): SliceFigures {
  const latencies = fires
    .filter((fire) => fire.enqueuedMs !== undefined)
    .map((fire) => (fire.enqueuedMs ?? 0) - fire.fireMs)
    .sort((a, b) => a - b);
  return {
    fires: label,
    expected: fires.length,
    enqueued: latencies.length,
    missed: fires.length - latencies.length,
    recordedMissed: fires.filter((fire) => fire.recordedMissed).length,
    enqueuedTwice: fires.filter((fire) => fire.enqueuedBy.length > 1).length,
    duplicateJobs: fires.reduce((sum, fire) => sum + Math.max(0, fire.added - 1), 0),
    ignoredAdds: fires.reduce((sum, fire) => sum + fire.ignoredAdds, 0),
    latencyMs: {
      median: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies.at(-1) ?? Number.NaN,
    },
    laterThan1s: latencies.filter((latency) => latency > 1000).length,
  };
}

interface SchedulerReport {
  readonly context: ReturnType<typeof finishContext>;
  readonly setup: {
    replicas: number;
    definitions: number;
    seconds: number;
    schedule: string;
    leaseMs: number;
  };
  readonly total: SliceFigures;
  readonly slices: SliceFigures[];
  /** Fires of the window each replica enqueued, by its log (a SIGKILLed one may lose its last lines). */
  readonly handledBy: Record<string, number>;
  readonly kill: KillReport | undefined;
  readonly cpu: CpuReport;
  /** The fire time whose slowest fire was the latest (outside a kill's delay). */
  readonly slowestSecond: SlowestSecond | undefined;
}

/**
 * The second with the latest fire. Each second's fires are handled in one tick, so the p99 of a
 * run is usually one slow tick: this says whether it was all of that tick's fires (the tick or
 * the replica was late) or a few (single fires were slow).
 */
interface SlowestSecond {
  readonly fireTime: string;
  readonly fires: number;
  readonly latencyMs: { min: number; max: number };
  /** Fires of that second each replica enqueued, by its log. */
  readonly enqueuedBy: Record<string, number>;
}

function slowestSecond(fires: readonly Fire[]): SlowestSecond | undefined {
  const bySecond = new Map<number, Fire[]>();
  for (const fire of fires) {
    if (fire.enqueuedMs === undefined) continue;
    bySecond.set(fire.fireMs, [...(bySecond.get(fire.fireMs) ?? []), fire]);
  }
  let worst: { fireMs: number; latencies: number[]; fires: Fire[] } | undefined;
  for (const [fireMs, group] of bySecond) {
    const latencies = group.map((fire) => (fire.enqueuedMs ?? 0) - fireMs).sort((a, b) => a - b);
    if (worst === undefined || (latencies.at(-1) ?? 0) > (worst.latencies.at(-1) ?? 0)) {
      worst = { fireMs, latencies, fires: group };
    }
  }
  if (worst === undefined) return undefined;
  const enqueuedBy: Record<string, number> = {};
  for (const fire of worst.fires) {
    for (const name of fire.enqueuedBy) enqueuedBy[name] = (enqueuedBy[name] ?? 0) + 1;
  }
  return {
    fireTime: new Date(worst.fireMs).toISOString(),
    fires: worst.fires.length,
    latencyMs: { min: worst.latencies[0] ?? Number.NaN, max: worst.latencies.at(-1) ?? Number.NaN },
    enqueuedBy,
  };
}

/** CPU time (user + system) used while the bench watched the window. */
interface CpuReport {
  /** How long it watched: from just before the window to the end (or the deadline). */
  readonly seconds: number;
  readonly replicasMs: Record<string, number>;
  readonly redisServerMs: number;
}

function summarise(
  context: ReturnType<typeof finishContext>,
  options: Options,
  fires: readonly Fire[],
  replicas: readonly SchedulerReplica[],
  kill: KillReport | undefined,
  cpu: CpuReport,
): SchedulerReport {
  const total = sliceFigures('all', fires);
  const slices = [total];
  const windowStart = Math.min(...fires.map((fire) => fire.fireMs));
  // The fires the kill delays: those of the definitions whose lease it held, from the one it
  // was handling (due in the second before the kill) on. Everything else shows the survivors.
  const delayed = (fire: Fire): boolean =>
    kill !== undefined &&
    kill.leasesHeld.includes(fire.definitionId) &&
    fire.fireMs > windowStart + kill.atMs - 1000;
  if (kill !== undefined) {
    slices.push(
      sliceFigures(
        'every other fire',
        fires.filter((fire) => !delayed(fire)),
      ),
    );
    if (kill.leasesHeld.length > 0) {
      slices.push(
        sliceFigures(
          `leased to the killed replica (${kill.leasesHeld.length} definition${kill.leasesHeld.length === 1 ? '' : 's'}), from the kill on`,
          fires.filter(delayed),
        ),
      );
    }
  }
  const handledBy: Record<string, number> = {};
  for (const replica of replicas) handledBy[replica.name] = 0;
  for (const fire of fires) {
    for (const name of fire.enqueuedBy) handledBy[name] = (handledBy[name] ?? 0) + 1;
  }
  return {
    context,
    setup: {
      replicas: options.replicas,
      definitions: options.definitions,
      seconds: options.seconds,
      schedule: EVERY_SECOND,
      leaseMs: options.leaseMs,
    },
    total,
    slices,
    handledBy,
    kill,
    cpu,
    slowestSecond: slowestSecond(fires.filter((fire) => !delayed(fire))),
  };
}

function print(report: SchedulerReport, markdown: boolean): void {
  const { setup } = report;
  const ms = (value: number) => (Number.isNaN(value) ? '-' : String(Math.round(value)));
  const table = renderTable(
    [
      'fires',
      'expected',
      'enqueued',
      'missed',
      'enqueued twice',
      'duplicate jobs',
      'adds ignored',
      'latency median ms',
      'p99 ms',
      'max ms',
      '> 1 s late',
    ],
    report.slices.map((slice) => [
      slice.fires,
      String(slice.expected),
      String(slice.enqueued),
      String(slice.missed),
      String(slice.enqueuedTwice),
      String(slice.duplicateJobs),
      String(slice.ignoredAdds),
      ms(slice.latencyMs.median),
      ms(slice.latencyMs.p99),
      ms(slice.latencyMs.max),
      String(slice.laterThan1s),
    ]),
    markdown,
  );
  const lines = [
    `scheduler benchmark: ${setup.replicas} replicas, ${setup.definitions} definitions firing every second ` +
      `('${setup.schedule}') for ${setup.seconds} s = ${report.total.expected} fires, lease ${setup.leaseMs} ms`,
    ...contextLines(report.context),
    '',
    table,
    '',
    `fires enqueued per replica (logs): ${Object.entries(report.handledBy)
      .map(([name, count]) => `${name} ${count}`)
      .join(', ')}`,
  ];
  const { cpu } = report;
  const replicaCpuMs = Object.values(cpu.replicasMs).reduce((sum, ms) => sum + ms, 0);
  const firesWatched = setup.definitions * cpu.seconds;
  lines.push(
    `CPU over the ${cpu.seconds} s watched: ${Object.entries(cpu.replicasMs)
      .map(([name, ms]) => `${name} ${ms} ms (${round1(ms / cpu.seconds / 10)}% of a core)`)
      .join(', ')}; redis-server ${cpu.redisServerMs} ms; ` +
      `about ${round1(replicaCpuMs / firesWatched)} ms of replica CPU per fire (all replicas, ` +
      `${setup.definitions} fires per second)`,
  );
  const slowest = report.slowestSecond;
  if (slowest !== undefined) {
    lines.push(
      `slowest second${report.kill === undefined ? '' : ' (outside the kill)'}: the ${slowest.fires} fires of ` +
        `${slowest.fireTime} were enqueued ${ms(slowest.latencyMs.min)}-${ms(slowest.latencyMs.max)} ms late, by ` +
        Object.entries(slowest.enqueuedBy)
          .map(([name, count]) => `${name} ${count}`)
          .join(', '),
    );
  }
  if (report.kill !== undefined) {
    const { kill } = report;
    lines.push(
      `killed: ${kill.replica} (pid ${kill.pid}) by SIGKILL at +${round1(kill.atMs / 1000)} s into the window, ` +
        (kill.leasesHeld.length > 0
          ? `holding the lease of ${describeLeases(kill.leasesHeld)} (taken over when it expired)`
          : 'holding no lease'),
    );
  }
  lines.push(
    'latency = when Redis stored the BullMQ job (its "added" event) minus the fire time; ' +
      '"adds ignored" = a second replica added an existing job id (BullMQ "duplicated" event)',
    '',
  );
  process.stdout.write(lines.join('\n'));
}
