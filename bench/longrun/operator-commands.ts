import {
  measureCommand,
  measureExport,
  type CommandFigures,
  type ExportFigures,
} from '../nightly/operations-figures.js';

/** What an operator runs on months of outcomes, each timed as its own process. */
export interface OperatorCommands {
  readonly runsCommand: CommandFigures;
  readonly failedCommand: CommandFigures;
  readonly export: ExportFigures;
}

/** `paw runs`, `paw outcomes --status failed --since 30d` and a full export, one after another. */
export async function measureOperatorCommands(options: {
  readonly entry: readonly string[];
  readonly environment: Readonly<Record<string, string>>;
  readonly dir: string;
}): Promise<OperatorCommands> {
  const { entry, environment } = options;
  const runsCommand = await measureCommand({ entry, environment, args: ['runs'] });
  const failedCommand = await measureCommand({
    entry,
    environment,
    args: ['outcomes', '--status', 'failed', '--since', '30d'],
  });
  const exported = await measureExport({ entry, environment, filters: [], dir: options.dir });
  return { runsCommand, failedCommand, export: exported };
}
