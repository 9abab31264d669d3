import type { Settings } from '../../config/settings-schema.js';
import type { DefinitionSet } from '../../definitions/definition-set.js';
import type { JobDefinition } from '../../definitions/job-definition.js';
import type { Shutdown } from '../../shared/shutdown.js';
import type { Logger } from '../../shared/logger.js';
import { OpsAccess } from '../../ops/auth/ops-access.js';
import { PawMetrics } from '../../ops/metrics/paw-metrics.js';
import { startOpsServer, type OpsServer } from '../../ops/ops-server.js';
import type { Outcomes } from '../../outcomes/outcomes.js';
import type { PlatformClient } from '../../platform/platform-client.js';
import { PAW_VERSION } from '../../shared/paw-version.js';

/**
 * The metrics of a long-running command. With `http.port` 0 nothing can scrape Node's process
 * metrics, so their sampling (a timer in every process) is left out.
 */
export function commandMetrics(settings: Settings, role: string): PawMetrics {
  return new PawMetrics({ version: PAW_VERSION, role, processMetrics: settings.http.port !== 0 });
}

/**
 * Checks, before the command connects to anything, that its ops server may start as configured:
 * credential files readable and not empty, no network address without authentication. A
 * misconfigured server fails the command at once (exit 2) rather than after Redis and the
 * platform were reached.
 */
export function checkOpsExposure(settings: Settings, logger: Logger): void {
  if (settings.http.port === 0) return;
  const access = new OpsAccess(settings.http, logger, settings.http.host);
  logger.debug({ authenticates: access.authenticates }, 'ops server settings checked');
}

export interface ServeOpsOptions {
  readonly settings: Settings;
  readonly logger: Logger;
  readonly shutdown: Shutdown;
  readonly metrics: PawMetrics;
  readonly role: string;
  readonly definitions?: DefinitionSet | readonly JobDefinition[];
  readonly platform?: PlatformClient;
  /** Whether `/readyz` waits for the platform (true by default); see {@link OpsServerOptions}. */
  readonly readinessChecksPlatform?: boolean;
  /** The process's outcomes, which the dashboard reads. */
  readonly outcomes: Outcomes;
  /** Where the command prints its status lines. */
  readonly status: (line: string) => void;
}

/**
 * Starts the ops server of a long-running command (health, metrics, dashboard on `http.port`),
 * registers it with the shutdown, and says where it listens, or that it is off.
 */
export async function serveOps(options: ServeOpsOptions): Promise<OpsServer | undefined> {
  const server = await startOpsServer({
    settings: options.settings,
    logger: options.logger,
    role: options.role,
    version: PAW_VERSION,
    metrics: options.metrics,
    outcomes: options.outcomes,
    ...(options.definitions === undefined ? {} : { definitions: options.definitions }),
    ...(options.platform === undefined ? {} : { platform: options.platform }),
    ...(options.readinessChecksPlatform === undefined
      ? {}
      : { readinessChecksPlatform: options.readinessChecksPlatform }),
  });
  if (server === undefined) {
    options.status('health, metrics and dashboard are off (http.port is 0)');
    return undefined;
  }
  options.shutdown.add('ops server', () => server.close());
  options.status(
    `dashboard ${server.url}/ · health ${server.url}/healthz, ${server.url}/readyz · metrics ${server.url}/metrics`,
  );
  return server;
}
