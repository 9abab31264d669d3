import { startDefinitionsReloader } from './definitions-reloader.js';
import type { Settings } from '../../config/settings-schema.js';
import type { DefinitionSet } from '../../definitions/definition-set.js';
import { checkOptionsFrom } from '../../definitions/load-definitions.js';
import type { Shutdown } from '../../shared/shutdown.js';
import type { Logger } from '../../shared/logger.js';
import type { PawMetrics } from '../../ops/metrics/paw-metrics.js';

/**
 * Keeps a scheduling process's definitions in step with `jobs.dir` (on change when
 * `jobs.watch`, and on SIGHUP) until it shuts down: `paw scheduler` and `paw start`.
 */
export function followDefinitionChanges(options: {
  readonly settings: Settings;
  readonly definitions: DefinitionSet;
  readonly logger: Logger;
  readonly shutdown: Shutdown;
  readonly status: (line: string) => void;
  readonly metrics: PawMetrics;
}): void {
  const { settings } = options;
  const reloader = startDefinitionsReloader({
    dir: settings.jobs.dir,
    checkOptions: checkOptionsFrom(settings),
    definitions: options.definitions,
    logger: options.logger,
    watch: settings.jobs.watch,
    status: options.status,
    onReload: (result, count) => options.metrics.definitions.reloaded(result, count),
  });
  options.metrics.definitions.started(options.definitions.current().length);
  options.shutdown.add('definitions reloader', () => reloader.close());
}
