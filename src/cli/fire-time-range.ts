import type { Command } from 'commander';
import { parseTimeOption } from './option-parsers.js';

/** `--since` and `--until`, as parsed. */
interface FireTimeFlags {
  readonly since?: Date;
  readonly until?: Date;
}

/** Adds `--since` and `--until` to a listing of runs or their items: the runs' fire times. */
export function withFireTimeRange(command: Command): Command {
  return command
    .option(
      '--since <time>',
      'only runs fired at or after this time (ISO 8601, or e.g. 7d ago)',
      (text) => parseTimeOption(text),
    )
    .option('--until <time>', 'only runs fired at or before this time', (text) =>
      parseTimeOption(text),
    );
}

/** The fire-time fields of an outcome query: those the flags give. */
export function fireTimeQuery(flags: FireTimeFlags): FireTimeFlags {
  return {
    ...(flags.since === undefined ? {} : { since: flags.since }),
    ...(flags.until === undefined ? {} : { until: flags.until }),
  };
}
