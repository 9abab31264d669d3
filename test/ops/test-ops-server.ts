import type { Logger } from '../../src/shared/logger.js';
import { PawMetrics } from '../../src/ops/metrics/paw-metrics.js';
import { startOpsServer, type OpsServer } from '../../src/ops/ops-server.js';
import { opsSettings } from './ops-settings.js';

/**
 * A real ops server on a free port of 127.0.0.1, with the settings `env` gives (as `PAW_*`
 * variables, through the real settings loader), the test run's Redis under a prefix of its own.
 */
export async function startTestOpsServer(
  label: string,
  env: Readonly<Record<string, string>>,
  logger: Logger,
): Promise<OpsServer> {
  const started = await startOpsServer({
    settings: await opsSettings(label, env),
    logger,
    role: 'scheduler',
    version: 'test',
    metrics: new PawMetrics({ processMetrics: false }),
    port: 0,
  });
  if (started === undefined) throw new Error('no ops server');
  return started;
}
