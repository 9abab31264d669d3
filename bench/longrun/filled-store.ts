import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { trimOutcomes } from '../../src/outcomes/outcome-retention.js';
import { Outcomes } from '../../src/outcomes/outcomes.js';
import { startPrivateRedisServer } from '../../src/redis/private-redis-server.js';
import { findFreePort } from '../../src/shared/free-port.js';
import type { PawCommand } from '../nightly/compiled-paw.js';
import type { CommandFigures, ExportFigures } from '../nightly/operations-figures.js';
import { measureLatency, type LatencyFigures } from '../nightly/operations-figures.js';
import { startPaw, type PawProcess } from '../nightly/paw-contender.js';
import type { Progress } from '../nightly/progress.js';
import { fillOutcomeStore, fillWorkloads } from '../support/outcome-fill.js';
import { settledUsedMemoryBytes, usedMemoryBytes } from '../support/used-memory.js';
import { measureOperatorCommands } from './operator-commands.js';
import { atMost, type LongrunFigure } from './longrun-report.js';

export interface FilledStoreOptions {
  readonly command: PawCommand;
  readonly nights: number;
  readonly items: number;
  /** GETs of each dashboard route. */
  readonly requests: number;
  readonly dir: string;
  readonly progress: Progress;
}

export interface FilledStoreResult {
  readonly figures: LongrunFigure[];
  readonly json: {
    readonly nights: number;
    readonly items: number;
    readonly fillSeconds: number;
    /** From paw scheduler's start to every run packed. */
    readonly packSeconds: number;
    readonly usedMemoryBytes: number;
    readonly bytesPerItem: number;
    readonly trim: {
      items: number;
      ms: number;
      longestCommandMs: number;
      longestCommand: string;
      commands: number;
    };
    readonly dashboard: LatencyFigures[];
    readonly runsCommand: CommandFigures;
    readonly failedCommand: CommandFigures;
    readonly export: ExportFigures;
  };
}

const DEFINITION_ID = 'filled';
const DAY_MS = 86_400_000;

/**
 * An outcome store of `nights` × `items` written through paw's own recording path, then what an
 * operator does with it: its memory, the trim of its oldest night (the longest single Redis
 * command, from SLOWLOG with every command logged), the dashboard's JSON API from an ops server
 * (`paw scheduler`, with no definitions: it serves, it fires nothing), and paw's commands.
 */
export async function measureFilledStore(options: FilledStoreOptions): Promise<FilledStoreResult> {
  const { progress } = options;
  const redisServer = await startPrivateRedisServer();
  const redis = new Redis(redisServer.url, { maxRetriesPerRequest: null });
  let ops: PawProcess | undefined;
  try {
    const outcomes = new Outcomes(redis, 'paw');
    const before = await usedMemoryBytes(redis);
    // The oldest night half a day inside the retention of `nights` days: paw scheduler's own
    // retention trimmer (90 days by default) must not take it before the measured trim does.
    // (At first a whole day back: the scheduler had trimmed it, and the bench's trim found none.)
    const firstNight = Date.now() - (options.nights - 0.5) * DAY_MS;
    const filling = performance.now();
    const runIds = await fillOutcomeStore(outcomes, {
      definitionId: DEFINITION_ID,
      nights: options.nights,
      workloads: fillWorkloads(options.items),
      firstNight,
      onNight: (night) => {
        if ((night + 1) % 10 === 0 || night + 1 === options.nights)
          progress.line(`filled: ${night + 1} of ${options.nights} nights stored`);
      },
    });
    const fillSeconds = (performance.now() - filling) / 1000;
    const stored = options.nights * options.items;

    const configDir = join(options.dir, 'filled-config');
    const jobsDir = join(options.dir, 'filled-jobs');
    await mkdir(configDir, { recursive: true });
    await mkdir(jobsDir, { recursive: true });
    await writeFile(join(configDir, 'paw.yaml'), '{}\n');
    const environment: Record<string, string> = {
      PAW_CONFIG_DIR: configDir,
      PAW_JOBS_DIR: jobsDir,
      PAW_REDIS_URL: redisServer.url,
      PAW_HTTP_PORT: '0',
      PAW_LOG_LEVEL: 'warn',
    };
    const { entry } = options.command;
    const port = await findFreePort();
    // paw scheduler packs the ended runs' items (outcomes.packAfterSeconds after they end), as
    // it does in production: the store is measured once it has.
    const packing = performance.now();
    ops = startPaw(
      entry,
      ['scheduler'],
      { ...environment, PAW_HTTP_PORT: String(port) },
      'paw scheduler',
      undefined,
    );
    await ops.ready;
    await waitForPacking(redis, outcomes, progress);
    const packSeconds = (performance.now() - packing) / 1000;
    const usedMemory = (await settledUsedMemoryBytes(redis)) - before;
    const bytesPerItem = usedMemory / stored;

    // No authentication configured: on loopback the ops server answers anyone
    // (src/ops/auth/ops-access.ts), as in `npm run bench -- nightly`.
    const opsUrl = `http://127.0.0.1:${port}`;
    const lastRun = runIds.at(-1) ?? '';
    const dashboard = [
      await measureLatency(opsUrl, '/api/runs', options.requests),
      await measureLatency(
        opsUrl,
        `/api/runs/${encodeURIComponent(lastRun)}`,
        options.requests,
        '/api/runs/<run>',
      ),
    ];
    await ops.stop();
    ops = undefined;
    progress.line('filled: timing paw runs, paw outcomes --status failed, the full export');
    const {
      runsCommand,
      failedCommand,
      export: exported,
    } = await measureOperatorCommands({
      entry,
      environment,
      dir: options.dir,
    });

    // The trim of the oldest night alone, every command it sends logged with its duration.
    await redis.config('SET', 'slowlog-log-slower-than', '0');
    await redis.config('SET', 'slowlog-max-len', '1000000');
    await redis.slowlog('RESET');
    const trimming = performance.now();
    const trimmed = await trimOutcomes(redis, 'paw', {
      now: new Date(firstNight + options.nights * DAY_MS + 3_600_000),
      retentionDays: options.nights,
    });
    const trimMs = performance.now() - trimming;
    const log = (await redis.slowlog('GET', -1)) as [number, number, number, string[]][];
    await redis.config('SET', 'slowlog-log-slower-than', '10000');
    const longest = log.reduce<[number, number, number, string[]]>(
      (top, entry) => (entry[2] > top[2] ? entry : top),
      [0, 0, 0, []],
    );
    const trim = {
      items: trimmed.items,
      ms: trimMs,
      longestCommandMs: longest[2] / 1000,
      longestCommand: longest[3].slice(0, 2).join(' '),
      commands: log.length,
    };

    const figures: LongrunFigure[] = [
      {
        figure: 'stored (nights × items), fill time',
        measured: `${options.nights} × ${options.items}, ${fillSeconds.toFixed(0)} s`,
      },
      {
        ...atMost('Redis bytes per item', bytesPerItem, 300, ' B'),
        measured: `${bytesPerItem.toFixed(0)} B (used_memory +${(usedMemory / 1024 / 1024).toFixed(0)} MiB, once paw scheduler packed the runs in ${packSeconds.toFixed(0)} s)`,
      },
      {
        ...atMost('longest Redis command of one night’s trim', trim.longestCommandMs, 50, ' ms', 1),
        measured: `${trim.longestCommandMs.toFixed(1)} ms (${trim.longestCommand}); the trim: ${trim.items} items in ${trim.ms.toFixed(0)} ms, ${trim.commands} commands`,
      },
      ...dashboard.map((one) => ({
        ...atMost(`p99 of GET ${one.path}`, one.p99Ms, 100, ' ms', 1),
        measured: `${one.p99Ms.toFixed(1)} ms (median ${one.medianMs.toFixed(1)}, ${one.requests} requests, ${one.kilobytes.toFixed(0)} KB)`,
      })),
      atMost('paw runs', runsCommand.seconds, 1, ' s', 2),
      {
        ...atMost('paw outcomes --status failed --since 30d', failedCommand.seconds, 2, ' s', 2),
        measured: `${failedCommand.seconds.toFixed(2)} s (${failedCommand.lines} lines)`,
      },
      {
        figure: 'paw outcomes --export jsonl (every item): time, peak RSS',
        measured: `${exported.seconds.toFixed(1)} s, ${exported.rows} rows (${exported.megabytes.toFixed(0)} MB), peak RSS ${(exported.peakRssMb ?? NaN).toFixed(0)} MB`,
      },
    ];
    return {
      figures,
      json: {
        nights: options.nights,
        items: options.items,
        fillSeconds,
        packSeconds,
        usedMemoryBytes: usedMemory,
        bytesPerItem,
        trim,
        dashboard,
        runsCommand,
        failedCommand,
        export: exported,
      },
    };
  } finally {
    await ops?.stop();
    redis.disconnect();
    await redisServer.stop();
  }
}

/** Waits until no ended run is left to pack (paw scheduler's PackingSweeper). */
async function waitForPacking(redis: Redis, outcomes: Outcomes, progress: Progress): Promise<void> {
  const total = await redis.zcard(outcomes.keys.unpacked());
  let reported = -1;
  for (;;) {
    const left = await redis.zcard(outcomes.keys.unpacked());
    const lazy = Number(
      /^lazyfree_pending_objects:(\d+)/m.exec(await redis.info('memory'))?.[1] ?? 0,
    );
    if (left === 0 && lazy === 0) return;
    if (reported === -1 || reported - left >= 10) {
      progress.line(`filled: paw scheduler packed ${total - left} of ${total} runs`);
      reported = left;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
