import { PAW_VERSION } from '../../shared/paw-version.js';
import type { Settings } from '../../config/settings-schema.js';
import { DefinitionSet } from '../../definitions/definition-set.js';
import type { JobDefinition } from '../../definitions/job-definition.js';
import type { Shutdown } from '../../shared/shutdown.js';
import type { Logger } from '../../shared/logger.js';
import type { PawMetrics } from '../../ops/metrics/paw-metrics.js';
import {
  startNotificationService,
  type NotificationService,
} from '../../job-kinds/notify/notification-service.js';
import type { Outcomes } from '../../outcomes/outcomes.js';
import { startCoverageRefresher } from '../../job-kinds/snapshot/coverage/coverage-refresher.js';
import { startCoverageDigests } from '../../job-kinds/snapshot/coverage/coverage-digests.js';
import { coverageReport } from '../../job-kinds/snapshot/coverage/coverage-report.js';
import { schedulerOnFire } from '../../ops/scheduler-observer.js';
import { startSchedulerService, type SchedulerService } from '../../scheduler/scheduler-service.js';
import { startWorkerService, type WorkerService } from './worker-service.js';
import { openSharedPlatformClient } from './open-platform-client.js';
import { platformCredentialsConfigured } from '../../platform/auth/credentials-source.js';
import type { PlatformClient } from '../../platform/platform-client.js';
import { openProcessOutcomes } from './open-outcomes.js';

export interface PawServicesOptions {
  readonly settings: Settings;
  /** The set a reload replaces (the scheduler follows it), or a fixed list. */
  readonly definitions: DefinitionSet | readonly JobDefinition[];
  readonly logger: Logger;
  readonly shutdown: Shutdown;
  readonly metrics: PawMetrics;
  /** Run workers, for these kinds or (`kinds` absent) every kind; false: no workers. */
  readonly workers: false | WorkerChoice;
}

export interface WorkerChoice {
  readonly kinds?: readonly string[] | undefined;
}

export interface PawServices<Workers extends WorkerService | undefined = WorkerService> {
  readonly notifications: NotificationService;
  readonly scheduler: SchedulerService;
  readonly workers: Workers;
  /** The process's outcomes, for whatever else it serves (the ops server, the demo's summary). */
  readonly outcomes: Outcomes;
  /**
   * The process's platform client: the workers', or a scheduler's own for protection coverage
   * (none when no credentials are configured). The ops server's coverage views use it.
   */
  readonly platform: PlatformClient | undefined;
}

/**
 * Starts paw's services in a process that loads the job definitions (`paw start` and `paw demo`
 * with workers, `paw scheduler` without), in the one order that makes shutdown right. The
 * shutdown releases in reverse order of opening, so:
 * - the notification producer opens first and closes last (summaries of runs that end while the
 *   workers drain, and of fires missed at start-up, still go out), then the record of 429s;
 * - the process's outcomes open next, with their observer (metrics, the producer): everything
 *   after them records or reads through them, and they close after all of it;
 * - the notification sender, then the scheduler, then the workers: the workers drain first;
 * - without workers, the platform client protection coverage uses (the workers' otherwise);
 * - the refresher of `paw_coverage_workloads` and the morning digests last (they stop first).
 *   They run wherever the definitions are loaded and a platform client can be had: `paw start`,
 *   and `paw scheduler` given credentials (the split deployment's scheduler); never in
 *   `paw worker`, which loads no definitions.
 */
export async function startPawServices(
  options: PawServicesOptions & { readonly workers: WorkerChoice },
): Promise<PawServices>;
export async function startPawServices(
  options: PawServicesOptions & { readonly workers: false },
): Promise<PawServices<undefined>>;
export async function startPawServices(
  options: PawServicesOptions,
): Promise<PawServices<WorkerService | undefined>> {
  const { settings, logger, shutdown, metrics } = options;
  const definitions = DefinitionSet.from(options.definitions);
  const workerOptions = options.workers;
  const {
    outcomes,
    notifications: producer,
    observers,
  } = await openProcessOutcomes({
    settings,
    logger,
    shutdown,
    metrics,
    runsWorkers: workerOptions !== false,
  });
  const notifications = await startNotificationService({
    settings,
    definitions,
    logger,
    shutdown,
    userAgent: `paw/${PAW_VERSION}`,
    onResult: (result) => metrics.notifications.record(result),
    outcomes,
    producer,
  });
  const scheduler = await startSchedulerService({
    settings,
    definitions: definitions.current(),
    logger: logger.child({ component: 'scheduler' }),
    shutdown,
    outcomes,
    onFire: schedulerOnFire(metrics, producer),
  });
  definitions.onChange((current) => scheduler.scheduler.replaceDefinitions(current));
  const workers =
    workerOptions === false
      ? undefined
      : await startWorkerService({
          settings,
          logger: logger.child({ component: 'worker' }),
          shutdown,
          outcomes,
          observers,
          ...(workerOptions.kinds === undefined ? {} : { kinds: workerOptions.kinds }),
        });
  // Coverage needs the definitions (loaded here) and a platform client: the workers', or in a
  // scheduler alone (the split deployment's one home for it) a client of its own, within the
  // request budget all processes share.
  const platform =
    workers !== undefined
      ? workers.platform
      : platformCredentialsConfigured(settings.platform)
        ? await openSharedPlatformClient({
            settings,
            logger: logger.child({ component: 'coverage' }),
            shutdown,
            redis: outcomes.redis,
            observer: observers.platform,
          })
        : undefined;
  if (platform === undefined) {
    logger.warn(
      'protection coverage is off in this process: no platform credentials (PAW_CREDENTIALS_FILE); ' +
        'paw_coverage_workloads, /api/coverage and the morning digests need them',
    );
  } else {
    startCoverageRefresher({
      settings,
      redis: outcomes.redis,
      coverage: outcomes.coverage,
      queries: outcomes.queries,
      platform,
      definitions: () => definitions.current(),
      metrics: metrics.coverage,
      logger: logger.child({ component: 'coverage' }),
      shutdown,
    });
    startCoverageDigests({
      settings,
      redis: outcomes.redis,
      producer,
      definitions: () => definitions.current(),
      coverage: (snapshots, now) =>
        coverageReport(snapshots, platform, outcomes.coverage, { now, signal: shutdown.signal }),
      logger: logger.child({ component: 'coverage-digest' }),
      shutdown,
    });
  }
  return { notifications, scheduler, workers, outcomes, platform };
}
