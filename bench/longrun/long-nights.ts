import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { RunRecord } from '../../src/outcomes/outcome-records.js';
import { OutcomeQueries } from '../../src/outcomes/outcome-queries.js';
import { isActiveStatus } from '../../src/outcomes/outcome-status.js';
import { startPrivateRedisServer } from '../../src/redis/private-redis-server.js';
import { findFreePort } from '../../src/shared/free-port.js';
import { eventually } from '../../test/testkit/eventually.js';
import { startSimulatorProcess } from '../../test/testkit/simulator-kit.js';
import type { PawCommand } from '../nightly/compiled-paw.js';
import { ContenderCrashedError } from '../nightly/contender-result.js';
import {
  nightInventory,
  nightSettings,
  pawNightEnvironment,
  simulatorOptions,
} from '../nightly/night-simulator-settings.js';
import type { CommandFigures, ExportFigures } from '../nightly/operations-figures.js';
import { startPaw, usageOf, type PawProcess } from '../nightly/paw-contender.js';
import type { Progress } from '../nightly/progress.js';
import { everySecondsCron } from './every-seconds-cron.js';
import { measureOperatorCommands } from './operator-commands.js';
import { atMost, growthPercent, type LongrunFigure } from './longrun-report.js';
import { packEndedRuns } from '../support/pack-ended-runs.js';
import { settledUsedMemoryBytes, usedMemoryBytes } from '../support/used-memory.js';

export interface LongNightsOptions {
  readonly command: PawCommand;
  /** Nights to run (at least 2: the RSS after night 2 is the baseline). */
  readonly runs: number;
  readonly workloads: number;
  /** The schedule's period, seconds. */
  readonly everySeconds: number;
  readonly timeScale: number;
  /** `paw start` plus this many minus one `paw worker`. */
  readonly workerProcesses: number;
  readonly dir: string;
  readonly progress: Progress;
}

export interface LongNightsResult {
  readonly figures: LongrunFigure[];
  readonly json: {
    readonly nights: { runId: string; status: string; seconds: number; items: number }[];
    readonly rssMb: Record<
      string,
      { afterNight2: number; afterLast: number; growthPercent: number }
    >;
    /** Once every night is packed. */
    readonly redisBytesPerItem: number;
    /** Right after the last night ended, its items not yet packed. */
    readonly redisBytesPerItemAtEnd: number;
    readonly items: number;
    readonly runsCommand: CommandFigures;
    readonly failedCommand: CommandFigures;
    readonly export: ExportFigures;
  };
}

const DEFINITION_ID = 'longrun';

/** A night that ran and ended: not one still going, nor a fire skipped while one was running. */
function isNight(run: RunRecord): boolean {
  return !isActiveStatus(run.status) && run.status !== 'skipped' && run.status !== 'missed';
}
/** paw's own limit on a night's RSS growth between night 2 and the last (issue 27). */
const RSS_GROWTH_TARGET_PERCENT = 10;

/**
 * K consecutive nights through long-lived processes: `paw start` and `paw worker`s stay up while
 * a snapshot definition of the night's workloads fires every `everySeconds` (the schedule, not
 * `paw run`) against the simulator as its own process, platform time compressed as in
 * `npm run bench -- nightly`. The RSS of each process is read after night 2 and after the last;
 * then the processes stop (no further fire) and the operator's commands are timed on the store.
 */
export async function runLongNights(options: LongNightsOptions): Promise<LongNightsResult> {
  const { progress } = options;
  const settings = nightSettings(options.workloads, options.timeScale);
  const inventory = nightInventory(settings);
  const simulator = await startSimulatorProcess(
    options.dir,
    simulatorOptions(settings, inventory.workloads),
  );
  const redisServer = await startPrivateRedisServer();
  const redis = new Redis(redisServer.url, { maxRetriesPerRequest: null });
  const processes: PawProcess[] = [];
  try {
    const configDir = join(options.dir, 'config');
    const jobsDir = join(options.dir, 'jobs');
    await mkdir(configDir, { recursive: true });
    await mkdir(jobsDir, { recursive: true });
    await writeFile(join(configDir, 'paw.yaml'), '{}\n');
    const cron = everySecondsCron(options.everySeconds);
    await writeFile(
      join(jobsDir, `${DEFINITION_ID}.yaml`),
      [
        '# The nights of `npm run bench -- longrun`: every VM and database on the Connected clusters.',
        `id: ${DEFINITION_ID}`,
        'kind: snapshot',
        // A night of 30-second periods fires more than once a minute, which is said.
        `schedule: { cron: '${cron}', timezone: UTC${options.everySeconds < 60 ? ', allowSubMinute: true' : ''} }`,
        `targets: { types: [VSPHERE_VM, MSSQL_DATABASE], clusterIds: [${inventory.clusterIds.join(', ')}] }`,
        'keepForever: true',
        'maxWait: 6h',
        '',
      ].join('\n'),
    );
    const environment: Record<string, string> = {
      PAW_CONFIG_DIR: configDir,
      PAW_JOBS_DIR: jobsDir,
      PAW_REDIS_URL: redisServer.url,
      PAW_CREDENTIALS_FILE: simulator.credentialsFile,
      PAW_HTTP_PORT: '0',
      PAW_LOG_LEVEL: 'warn',
      ...pawNightEnvironment(settings),
    };
    const { entry } = options.command;
    const serving = async (): Promise<Record<string, string>> => ({
      ...environment,
      PAW_HTTP_PORT: String(await findFreePort()),
    });
    processes.push(startPaw(entry, ['start'], await serving(), 'paw start', undefined));
    for (let index = 1; index < options.workerProcesses; index++)
      processes.push(
        startPaw(
          entry,
          ['worker', '--kinds', 'snapshot'],
          await serving(),
          `paw worker ${index}`,
          undefined,
        ),
      );
    await Promise.all(processes.map((paw) => paw.ready));
    const memoryBefore = await usedMemoryBytes(redis);
    progress.line(
      `longrun: ${processes.length} paw processes ready; ${settings.snapshots} workloads a night, fired by '${cron}'`,
    );

    const queries = new OutcomeQueries(redis, 'paw');
    const rssAfterNight2 = new Map<string, number>();
    let reported = 0;
    const finishedRuns = async () =>
      (await queries.listRuns({ definitionId: DEFINITION_ID, order: 'oldest-first' })).filter(
        isNight,
      );
    await eventually(
      `${options.runs} nights to end`,
      async () => {
        const dead = processes.find((paw) => paw.exited());
        if (dead !== undefined)
          throw new ContenderCrashedError(`${dead.name} exited:\n${dead.stderrTail()}`);
        const ended = (await finishedRuns()).length;
        if (ended >= 2 && rssAfterNight2.size === 0)
          for (const paw of processes) rssAfterNight2.set(paw.name, usageOf(paw).rssMb);
        if (ended > reported) {
          reported = ended;
          progress.line(
            `longrun: night ${ended} of ${options.runs} ended; RSS ${processes.map((paw) => `${paw.name} ${usageOf(paw).rssMb.toFixed(0)} MB`).join(', ')}`,
          );
        }
        return ended >= options.runs ? true : undefined;
      },
      { timeoutMs: Infinity, intervalMs: 500 },
    );
    const rssAfterLast = new Map(processes.map((paw) => [paw.name, usageOf(paw).rssMb]));
    // Stopped before the operator's commands, so no further night fires under them.
    await Promise.all(processes.map((paw) => paw.stop()));
    processes.length = 0;

    const runs = await queries.listRuns({ definitionId: DEFINITION_ID, order: 'oldest-first' });
    const items = runs.reduce((sum, run) => sum + run.counts.total, 0);
    // Right after the last night, its items are still in their hash: paw start packs a run
    // outcomes.packAfterSeconds (2 s) after it ends. Both figures: as left, and once packed (by
    // the same sweeper paw start runs, here in this process since paw start is stopped).
    const redisBytesPerItemAtEnd = ((await usedMemoryBytes(redis)) - memoryBefore) / items;
    await packEndedRuns(redis, 'paw');
    const redisBytesPerItem = ((await settledUsedMemoryBytes(redis)) - memoryBefore) / items;
    progress.line(`longrun: ${runs.length} runs, ${items} items stored; timing paw's commands`);
    const {
      runsCommand,
      failedCommand,
      export: exported,
    } = await measureOperatorCommands({
      entry,
      environment,
      dir: options.dir,
    });

    const rss = Object.fromEntries(
      [...rssAfterLast].map(([name, last]) => {
        const second = rssAfterNight2.get(name) ?? NaN;
        return [
          name,
          { afterNight2: second, afterLast: last, growthPercent: growthPercent(second, last) },
        ];
      }),
    );
    const nights = runs.filter(isNight).map((run) => ({
      runId: run.runId,
      status: run.status,
      seconds: (Date.parse(run.finishedAt ?? '') - Date.parse(run.createdAt ?? '')) / 1000,
      items: run.counts.total,
    }));
    const figures: LongrunFigure[] = [
      {
        figure: 'nights ended (status, seconds each)',
        measured: nights.map((night) => `${night.status} ${night.seconds.toFixed(0)} s`).join(', '),
      },
      ...Object.entries(rss).map(([name, one]) => ({
        ...atMost(
          `RSS growth of ${name}, night 2 → night ${options.runs}`,
          one.growthPercent,
          RSS_GROWTH_TARGET_PERCENT,
          ' %',
          1,
        ),
        measured: `${one.afterNight2.toFixed(0)} → ${one.afterLast.toFixed(0)} MB (${one.growthPercent.toFixed(1)} %)`,
      })),
      {
        ...atMost(
          'Redis bytes per item (used_memory growth / items stored), packed',
          redisBytesPerItem,
          300,
          ' B',
        ),
        measured: `${redisBytesPerItem.toFixed(0)} B (${items} items; ${redisBytesPerItemAtEnd.toFixed(0)} B right after the last night, before paw packed it)`,
      },
      { figure: 'paw runs', measured: `${runsCommand.seconds.toFixed(2)} s` },
      {
        figure: 'paw outcomes --status failed --since 30d',
        measured: `${failedCommand.seconds.toFixed(2)} s (${failedCommand.lines} lines)`,
      },
      {
        figure: 'paw outcomes --export jsonl (every item)',
        measured: `${exported.seconds.toFixed(2)} s, ${exported.rows} rows, peak RSS ${(exported.peakRssMb ?? NaN).toFixed(0)} MB`,
      },
    ];
    return {
      figures,
      json: {
        nights,
        rssMb: rss,
        redisBytesPerItem,
        redisBytesPerItemAtEnd,
        items,
        runsCommand,
        failedCommand,
        export: exported,
      },
    };
  } finally {
    await Promise.all(processes.map((paw) => paw.stop()));
    redis.disconnect();
    await redisServer.stop();
    await simulator.stop();
  }
}
