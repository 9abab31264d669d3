import type { Settings } from '../../config/settings-schema.js';
import { displayPath, formatProblem } from '../../definitions/definition-problem.js';
import { DefinitionSet } from '../../definitions/definition-set.js';
import { checkOptionsFrom, loadDefinitionsToSchedule } from '../../definitions/load-definitions.js';
import type { Logger } from '../../shared/logger.js';

/**
 * The definitions a scheduling command (`paw scheduler`, `paw start`) starts with, and its first
 * status line: how many, from where. A folder that holds none does not stop it: it says so (an
 * error in the log and on the terminal, and on the set, which `/readyz` and the dashboard show)
 * and schedules nothing until a reload brings some. Invalid definitions stop it (exit 2).
 */
export async function definitionsToSchedule(
  settings: Settings,
  status: (line: string) => void,
  logger: Logger,
): Promise<DefinitionSet> {
  const { dir } = settings.jobs;
  const loaded = await loadDefinitionsToSchedule(dir, checkOptionsFrom(settings));
  const definitions = new DefinitionSet(loaded.definitions.map((entry) => entry.definition));
  if (loaded.none !== undefined) {
    definitions.refuse([loaded.none], new Date());
    logger.error({ dir }, 'no job definitions: nothing is scheduled until some are added');
    status(
      `no job definitions: nothing is scheduled until some are added:\n  ${formatProblem(loaded.none)}`,
    );
    return definitions;
  }
  const count = definitions.current().length;
  const disabled = definitions.current().filter((definition) => !definition.enabled).length;
  status(
    `${count} definition${count === 1 ? '' : 's'} from ${displayPath(dir)}` +
      (disabled > 0 ? ` (${disabled} disabled)` : ''),
  );
  return definitions;
}
