import type { Settings } from '../../config/settings-schema.js';
import { createLogger, type Logger } from '../../shared/logger.js';
import { loadCommandSettings, type SettingsFlags } from '../command-settings.js';
import { checkOpsExposure } from './serve-ops.js';

/** What a long-running command (`paw scheduler`, `paw start`, `paw worker`) opens first. */
export interface LongRunningCommand {
  readonly settings: Settings;
  /** Prints a status line on standard error, prefixed `paw <command>:`. */
  readonly status: (line: string) => void;
  /** JSON logs on standard error, each record with the command's `component`. */
  readonly logger: Logger;
}

/**
 * Opens a long-running command: its settings (with `flags` applied), its status lines and its
 * logger; and fails it at once (exit 2), before it connects to anything, when its ops server may
 * not start as configured.
 */
export async function openLongRunningCommand(
  command: string,
  component: string,
  flags: SettingsFlags = {},
): Promise<LongRunningCommand> {
  const { settings } = await loadCommandSettings(flags);
  const status = (line: string): void => {
    process.stderr.write(`paw ${command}: ${line}\n`);
  };
  const logger = createLogger({ level: settings.log.level, base: { component } });
  checkOpsExposure(settings, logger);
  return { settings, status, logger };
}
