import type { Command } from 'commander';
import { loadSettings, type LoadedSettings } from '../config/load-settings.js';
import { UsageError } from '../errors/usage-error.js';
import { createLogger, type Logger } from '../log/logger.js';
import { InvalidRequestError } from '../platform/http/platform-errors.js';
import { createPlatformClient, type PlatformClient } from '../platform/platform-client.js';
import { createOutput, type Output } from './output/output.js';

/** The options every platform command shares. */
export interface PlatformCommandOptions {
  readonly credentials?: string;
  readonly json?: boolean;
  readonly verbose?: boolean;
}

export interface PlatformCommandContext {
  readonly client: PlatformClient;
  readonly output: Output;
  readonly logger: Logger;
  readonly loaded: LoadedSettings;
}

/** Adds `--credentials FILE`, `--json` and `--verbose` to a platform command. */
export function withPlatformOptions(command: Command, options: { json?: boolean } = {}): Command {
  command
    .option(
      '--credentials <file>',
      "the platform's service-account credentials file (default: PAW_CREDENTIALS_FILE)",
    )
    .option('-v, --verbose', 'log one line per platform call on standard error');
  if (options.json !== false) command.option('--json', 'print JSON for scripts instead of a table');
  return command;
}

/**
 * Runs a command body with a platform client built from the settings (a `--credentials` flag
 * beats `PAW_CREDENTIALS_FILE`) and closes it afterwards, whatever happens: cluster sessions are
 * deleted and the platform session revoked. Logs go to standard error at `warn` unless
 * `log.level` is set or `--verbose` is given.
 */
export async function withPlatformClient<T>(
  options: PlatformCommandOptions,
  run: (context: PlatformCommandContext) => Promise<T>,
): Promise<T> {
  const loaded = await loadSettings({
    overrides:
      options.credentials === undefined
        ? []
        : [
            {
              path: ['platform', 'credentialsFile'],
              value: options.credentials,
              source: 'flag --credentials',
            },
          ],
  });
  const level = options.verbose
    ? 'info'
    : loaded.isExplicit(['log', 'level'])
      ? loaded.settings.log.level
      : 'warn';
  const logger = createLogger({ level, base: { component: 'cli' } });
  const output = createOutput(options);
  const client = await createPlatformClient({ settings: loaded.settings, logger });
  try {
    return await run({ client, output, logger, loaded });
  } catch (error) {
    // paw refused to send a request because of what it was asked (an unsupported workload type,
    // a malformed id): that is bad usage, exit 2, not a platform failure.
    if (error instanceof InvalidRequestError && error.status === undefined) {
      throw new UsageError(error.message, { cause: error });
    }
    throw error;
  } finally {
    await client.close();
  }
}
