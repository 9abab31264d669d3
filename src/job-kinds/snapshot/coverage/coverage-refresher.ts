import type { Redis } from 'ioredis';
import type { Settings } from '../../../config/settings-schema.js';
import type { JobDefinition } from '../../../definitions/job-definition.js';
import { coverageReport, snapshotDefinitions } from './coverage-report.js';
import type { CoverageIndex } from '../../../outcomes/coverage-index.js';
import type { OutcomeQueries } from '../../../outcomes/outcome-queries.js';
import { isActiveStatus } from '../../../outcomes/outcome-status.js';
import type { PlatformClient } from '../../../platform/platform-client.js';
import type { Logger } from '../../../shared/logger.js';
import type { Shutdown } from '../../../shared/shutdown.js';

/**
 * How often a refresher looks for snapshot runs that ended elsewhere (in a split deployment, in
 * the workers): a night's counts show within about this long of its end.
 */
const RUN_END_CHECK_MS = 15_000;

/** One definition's workload counts by coverage state (coverage-report.ts). */
export interface DefinitionCounts {
  readonly definitionId: string;
  readonly counts: Readonly<Record<string, number>>;
}

/**
 * Where the counts go: the coverage gauges of the process's metrics (CoverageMetrics,
 * src/ops/metrics/coverage-metrics.ts, which the process wiring gives).
 */
export interface CoverageGauges {
  /** A refresher runs in this process, every `intervalMs`. */
  refreshing(intervalMs: number): void;
  /** What to do when a snapshot run ends in this process (the refresher computes again). */
  onSnapshotRunEnd(listener: (runId: string) => void): void;
  /** The counts of every definition, as computed at `computedAtMs`. */
  record(definitions: readonly DefinitionCounts[], computedAtMs: number): void;
}

interface StoredCounts {
  readonly atMs: number;
  readonly definitions: readonly DefinitionCounts[];
}

export interface CoverageRefresherOptions {
  readonly settings: Settings;
  /** For the turn and the shared counts (`<prefix>:ops:coverage:*`). */
  readonly redis: Redis;
  readonly coverage: CoverageIndex;
  /** To see each snapshot definition's newest run end, wherever it ended. */
  readonly queries: OutcomeQueries;
  readonly platform: PlatformClient;
  /** The definitions loaded now (a reload changes them). */
  readonly definitions: () => readonly JobDefinition[];
  readonly metrics: CoverageGauges;
  readonly logger: Logger;
  readonly shutdown: Shutdown;
}

/**
 * Keeps `paw_coverage_workloads` current in a process that has the definitions and a platform
 * client (`paw start`, `paw scheduler`): after each snapshot run's end, and every
 * `coverage.refreshIntervalMs`. Each computation is `coverageReport` (one listing of the platform
 * per definition), so replicas take turns: per interval, the first to set
 * `<prefix>:ops:coverage:turn` computes and stores the counts (`…:counts`), the others read
 * those. A run's end is heard at once where it ended (in `paw start`), and elsewhere within
 * {@link RUN_END_CHECK_MS} from each definition's newest run (a scheduler, whose runs end in the
 * workers); the first process to claim it (`<prefix>:ops:coverage:run-end:<runId>`) computes,
 * and the others serve its counts at their next look. Every replica then serves the same
 * numbers, and the platform sees one computation per interval plus one per run end, however
 * many replicas run.
 */
export function startCoverageRefresher(options: CoverageRefresherOptions): {
  /** Computes now (`force`, as after a run's end) or takes this interval's turn if free. */
  readonly refresh: (force: boolean) => Promise<void>;
} {
  const { settings, redis, logger, shutdown, metrics } = options;
  const intervalMs = settings.coverage.refreshIntervalMs;
  const turnKey = `${settings.redis.prefix}:ops:coverage:turn`;
  const countsKey = `${settings.redis.prefix}:ops:coverage:counts`;
  let running: Promise<void> | undefined;
  let forceAgain = false;
  /** When the counts this process serves were computed (by it or another replica). */
  let recordedAtMs: number | undefined;

  const compute = async (): Promise<StoredCounts> => {
    const atMs = Date.now();
    const report = await coverageReport(
      snapshotDefinitions(options.definitions()),
      options.platform,
      options.coverage,
      { now: new Date(atMs), signal: shutdown.signal },
    );
    const stored: StoredCounts = {
      atMs,
      definitions: report.definitions.map(({ definitionId, counts }) => ({
        definitionId,
        counts,
      })),
    };
    // Kept for a few intervals: a replica reading after its author stopped still finds them.
    await redis.set(countsKey, JSON.stringify(stored), 'PX', intervalMs * 3);
    await redis.set(turnKey, '1', 'PX', intervalMs);
    return stored;
  };

  const stored = async (): Promise<StoredCounts | undefined> => {
    const json = await redis.get(countsKey);
    return json === null ? undefined : (JSON.parse(json) as StoredCounts);
  };

  const serve = (counts: StoredCounts | undefined): void => {
    if (counts === undefined) return;
    metrics.record(counts.definitions, counts.atMs);
    recordedAtMs = counts.atMs;
  };

  const once = async (force: boolean): Promise<void> => {
    const myTurn = force || (await redis.set(turnKey, '1', 'PX', intervalMs, 'NX')) === 'OK';
    serve(myTurn ? await compute() : await stored());
  };

  const refresh = async (force: boolean): Promise<void> => {
    if (running !== undefined) {
      // Run ends come in bursts: one more computation after the current one covers them all.
      forceAgain ||= force;
      return running;
    }
    running = (async () => {
      let nextForce = force;
      do {
        forceAgain = false;
        try {
          await once(nextForce);
        } catch (error) {
          if (shutdown.signal.aborted) return;
          // Says what went wrong and how old the values served instead are: an unreachable
          // platform here is what PawCoverageRefreshStale alerts on after a few intervals.
          const message = error instanceof Error ? error.message : String(error);
          logger.warn(
            {
              err: { message },
              refreshedAt: recordedAtMs === undefined ? null : new Date(recordedAtMs).toISOString(),
            },
            `could not refresh paw_coverage_workloads (protection coverage): ${message}; ` +
              (recordedAtMs === undefined
                ? 'it has no values yet'
                : `its values of ${new Date(recordedAtMs).toISOString()} stay`),
          );
        }
        nextForce = forceAgain;
      } while (nextForce && !shutdown.signal.aborted);
    })().finally(() => (running = undefined));
    return running;
  };

  // Redis unreachable, most likely (its own log says so): the interval's refresh still comes.
  const warnRunEnds = (error: unknown): void => {
    if (shutdown.signal.aborted) return;
    logger.warn(
      { err: { message: error instanceof Error ? error.message : String(error) } },
      'could not act on snapshot run ends; paw_coverage_workloads waits for its interval',
    );
  };

  /** Computes after a run's end, in the one process that claims it first. */
  const runEnded = async (runId: string): Promise<void> => {
    const claim = `${settings.redis.prefix}:ops:coverage:run-end:${runId}`;
    if ((await redis.set(claim, '1', 'PX', intervalMs * 3, 'NX')) === 'OK') await refresh(true);
  };

  /** Each snapshot definition's newest run, if it has ended ('' while none has). */
  const newestEnded = new Map<string, string>();
  const lookForRunEnds = async (): Promise<void> => {
    for (const definition of snapshotDefinitions(options.definitions())) {
      const [newest] = await options.queries.listRuns({ definitionId: definition.id, limit: 1 });
      const ended = newest !== undefined && !isActiveStatus(newest.status) ? newest.runId : '';
      const before = newestEnded.get(definition.id);
      newestEnded.set(definition.id, ended);
      // The first look only notes where things stand: the start-up refresh counts it.
      if (before !== undefined && ended !== '' && ended !== before) await runEnded(ended);
    }
    // Counts another replica computed since (after a run end it claimed): served here too, so
    // that replicas differ for one look at most, not for an interval.
    const latest = running === undefined ? await stored() : undefined;
    if (latest !== undefined && latest.atMs > (recordedAtMs ?? 0)) serve(latest);
  };

  metrics.refreshing(intervalMs);
  metrics.onSnapshotRunEnd((runId) => {
    runEnded(runId).catch(warnRunEnds);
  });
  let looking: Promise<void> | undefined;
  const look = (): void => {
    if (looking !== undefined) return;
    looking = lookForRunEnds()
      .catch(warnRunEnds)
      .finally(() => (looking = undefined));
  };
  const runEndTimer = setInterval(look, RUN_END_CHECK_MS);
  runEndTimer.unref();
  const timer = setInterval(() => void refresh(false), intervalMs);
  timer.unref();
  shutdown.add('coverage refresher', async () => {
    clearInterval(timer);
    clearInterval(runEndTimer);
    await looking;
    await running;
  });
  void refresh(false);
  look();
  return { refresh };
}
