import type { DefinitionSet } from '../../definitions/definition-set.js';
import type { PawMetrics } from '../../ops/metrics/paw-metrics.js';
import type { Outcomes } from '../../outcomes/outcomes.js';
import type { PlatformClient } from '../../platform/platform-client.js';
import { Shutdown } from '../../shared/shutdown.js';
import type { SettingsFlags } from '../command-settings.js';
import { definitionsToSchedule } from './definitions-to-schedule.js';
import { followDefinitionChanges } from './follow-definitions.js';
import { openLongRunningCommand, type LongRunningCommand } from './long-running-command.js';
import { commandMetrics, serveOps } from './serve-ops.js';
import { serveUntilSignal } from './until-signal.js';

/** A scheduling process, as its services start. */
export interface SchedulingProcess extends LongRunningCommand {
  readonly shutdown: Shutdown;
  readonly metrics: PawMetrics;
  /** The definitions it schedules; a reload replaces them. */
  readonly definitions: DefinitionSet;
}

/** What a scheduling command's services are, once started. */
export interface SchedulingServices {
  /** The process's outcomes, which the ops server reads. */
  readonly outcomes: Outcomes;
  /**
   * The process's platform client, if it has one: the workers', or a scheduler's for protection
   * coverage. The ops server's coverage views use it; `/readyz` waits for it only in a process
   * that runs workers (a scheduler fires on while the platform is away).
   */
  readonly platform?: PlatformClient | undefined;
  /** Prints the command's last status lines, once its ops server serves. */
  readonly ready: () => void;
}

/**
 * The life of a command that schedules (`paw scheduler`, `paw start`): opened like every
 * long-running command, its definitions loaded (their first status line), then until a signal:
 * its services (`startUp`), the ops server, and the following of definition changes.
 */
export async function runSchedulingCommand(options: {
  readonly command: 'scheduler' | 'start';
  /** The `component` of its log records. */
  readonly component: string;
  readonly flags: SettingsFlags;
  /** Whether it runs workers: its grace period is then theirs (`worker.shutdownGraceMs`). */
  readonly runsWorkers: boolean;
  readonly startUp: (process: SchedulingProcess) => Promise<SchedulingServices>;
}): Promise<void> {
  const opened = await openLongRunningCommand(options.command, options.component, options.flags);
  const { settings, status, logger } = opened;
  const definitions = await definitionsToSchedule(settings, status, logger);
  const shutdown = new Shutdown({
    logger,
    ...(options.runsWorkers ? { graceMs: settings.worker.shutdownGraceMs } : {}),
  });
  const metrics = commandMetrics(settings, options.command);
  await serveUntilSignal(
    shutdown,
    status,
    'stopping (send the signal again to force)',
    async () => {
      const context = { ...opened, shutdown, metrics, definitions };
      const services = await options.startUp(context);
      await serveOps({
        ...context,
        role: options.command,
        outcomes: services.outcomes,
        ...(services.platform === undefined ? {} : { platform: services.platform }),
        readinessChecksPlatform: options.runsWorkers,
      });
      followDefinitionChanges(context);
      services.ready();
    },
  );
}
