import type { Command } from 'commander';
import { loadSettings, type LoadedSettings } from '../config/load-settings.js';
import { UsageError } from '../shared/usage-error.js';
import { createLogger, type Logger } from '../shared/logger.js';
import { InvalidRequestError } from '../platform/http/platform-errors.js';
import { PLATFORM_APIS, type PlatformApiKind } from '../platform/defaults/platform-apis.js';
import { createPlatformClient, type PlatformClient } from '../platform/platform-client.js';
import { oneOf } from './option-parsers.js';
import { createOutput, type Output } from './output/output.js';

/** The options every platform command shares. */
export interface PlatformCommandOptions {
  readonly credentials?: string;
  readonly api?: PlatformApiKind;
  readonly json?: boolean;
  readonly verbose?: boolean;
}

export interface PlatformCommandContext {
  readonly client: PlatformClient;
  readonly output: Output;
  readonly logger: Logger;
  readonly loaded: LoadedSettings;
}

/** Adds `--credentials FILE`, `--api`, `--json` and `--verbose` to a platform command. */
export function withPlatformOptions(command: Command, options: { json?: boolean } = {}): Command {
  command
    .option(
      '--credentials <file>',
      "the platform's service-account credentials file (default: PAW_CREDENTIALS_FILE)",
    )
    .option(
      '--api <api>',
      'the interface to use: rest or graphql (default: platform.api, PAW_PLATFORM_API)',
      oneOf(PLATFORM_APIS),
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
  /**
   * When the client cannot be built (no credentials, a bad address): what to do instead of
   * failing with exit 2, e.g. `paw doctor` reports it as a failed check with its fix.
   */
  withoutClient?: (
    error: UsageError,
    context: Omit<PlatformCommandContext, 'client'>,
  ) => Promise<T>,
): Promise<T> {
  const loaded = await loadSettings({
    overrides: [
      ...(options.credentials === undefined
        ? []
        : [
            {
              path: ['platform', 'credentialsFile'],
              value: options.credentials,
              source: 'flag --credentials',
            },
          ]),
      ...(options.api === undefined
        ? []
        : [{ path: ['platform', 'api'], value: options.api, source: 'flag --api' }]),
    ],
  });
  const level = options.verbose
    ? 'info'
    : loaded.isExplicit(['log', 'level'])
      ? loaded.settings.log.level
      : 'warn';
  const logger = createLogger({ level, base: { component: 'cli' } });
  const output = createOutput(options);
  let client: PlatformClient;
  try {
    client = await createPlatformClient({ settings: loaded.settings, logger });
  } catch (error) {
    if (withoutClient === undefined || !(error instanceof UsageError)) throw error;
    return withoutClient(error, { output, logger, loaded });
  }
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
