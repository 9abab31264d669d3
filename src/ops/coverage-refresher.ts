import type { Redis } from 'ioredis';
import type { Settings } from '../config/settings-schema.js';
import type { JobDefinition } from '../definitions/job-definition.js';
import { coverageReport, snapshotDefinitions } from '../job-kinds/snapshot/coverage.js';
import type { CoverageIndex } from '../outcomes/coverage-index.js';
import type { PlatformClient } from '../platform/platform-client.js';
import type { Logger } from '../shared/logger.js';
import type { Shutdown } from '../shared/shutdown.js';
import type { CoverageMetrics, DefinitionCounts } from './metrics/coverage-metrics.js';

interface StoredCounts {
  readonly atMs: number;
  readonly definitions: readonly DefinitionCounts[];
}

export interface CoverageRefresherOptions {
  readonly settings: Settings;
  /** For the turn and the shared counts (`<prefix>:ops:coverage:*`). */
  readonly redis: Redis;
  readonly coverage: CoverageIndex;
  readonly platform: PlatformClient;
  /** The definitions loaded now (a reload changes them). */
  readonly definitions: () => readonly JobDefinition[];
  readonly metrics: CoverageMetrics;
  readonly logger: Logger;
  readonly shutdown: Shutdown;
}

/**
 * Keeps `paw_coverage_workloads` current in a process that has the definitions and a platform
 * client (`paw start`, `paw scheduler`): after each snapshot run that ends in it (in `paw start`;
 * a scheduler sees no run end, the workers do), and every
 * `coverage.refreshIntervalMs`. Each computation is `coverageReport` (one listing of the platform
 * per definition), so replicas take turns: per interval, the first to set
 * `<prefix>:ops:coverage:turn` computes and stores the counts (`…:counts`), the others read
 * those. Every replica then serves the same numbers, and the platform sees one computation per
 * interval plus one per run end, however many replicas run.
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

  const once = async (force: boolean): Promise<void> => {
    const myTurn = force || (await redis.set(turnKey, '1', 'PX', intervalMs, 'NX')) === 'OK';
    let counts: StoredCounts | undefined;
    if (myTurn) {
      counts = await compute();
    } else {
      const stored = await redis.get(countsKey);
      counts = stored === null ? undefined : (JSON.parse(stored) as StoredCounts);
    }
    if (counts !== undefined) {
      metrics.record(counts.definitions, counts.atMs);
      recordedAtMs = counts.atMs;
    }
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

  metrics.refreshing(intervalMs);
  metrics.onSnapshotRunEnd(() => void refresh(true));
  const timer = setInterval(() => void refresh(false), intervalMs);
  timer.unref();
  shutdown.add('coverage refresher', async () => {
    clearInterval(timer);
    await running;
  });
  void refresh(false);
  return { refresh };
}
