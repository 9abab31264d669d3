import { readFileSync } from 'node:fs';
import { Command, Help } from 'commander';
import { PAW_VERSION } from '../shared/paw-version.js';

/**
 * Every command, in the order `paw --help` lists them. Each lives in its own file under
 * `commands/` and is loaded only when needed: `paw validate` should not pay for loading the
 * simulator, BullMQ and the dashboard, since scripts and tests start `paw` many times a minute.
 */
const COMMANDS: readonly { name: string; load: () => Promise<Command> }[] = [
  { name: 'demo', load: async () => (await import('./commands/demo.js')).demoCommand() },
  { name: 'sim', load: async () => (await import('./commands/sim.js')).simCommand() },
  { name: 'doctor', load: async () => (await import('./commands/doctor.js')).doctorCommand() },
  {
    name: 'workloads',
    load: async () => (await import('./commands/workloads.js')).workloadsCommand(),
  },
  {
    name: 'snapshot',
    load: async () => (await import('./commands/snapshot.js')).snapshotCommand(),
  },
  { name: 'sla', load: async () => (await import('./commands/sla.js')).slaCommand() },
  {
    name: 'clusters',
    load: async () => (await import('./commands/clusters.js')).clustersCommand(),
  },
  { name: 'events', load: async () => (await import('./commands/events.js')).eventsCommand() },
  {
    name: 'accounts',
    load: async () => (await import('./commands/accounts.js')).accountsCommand(),
  },
  {
    name: 'cluster-session',
    load: async () => (await import('./commands/cluster-session.js')).clusterSessionCommand(),
  },
  { name: 'login', load: async () => (await import('./commands/login.js')).loginCommand() },
  {
    name: 'validate',
    load: async () => (await import('./commands/validate.js')).validateCommand(),
  },
  {
    name: 'scheduler',
    load: async () => (await import('./commands/scheduler.js')).schedulerCommand(),
  },
  {
    name: 'schedules',
    load: async () => (await import('./commands/schedules.js')).schedulesCommand(),
  },
  { name: 'run', load: async () => (await import('./commands/run.js')).runCommand() },
  { name: 'retry', load: async () => (await import('./commands/retry.js')).retryCommand() },
  {
    name: 'backfill',
    load: async () => (await import('./commands/backfill.js')).backfillCommand(),
  },
  { name: 'runs', load: async () => (await import('./commands/runs.js')).runsCommand() },
  {
    name: 'coverage',
    load: async () => (await import('./commands/coverage.js')).coverageCommand(),
  },
  {
    name: 'outcomes',
    load: async () => (await import('./commands/outcomes.js')).outcomesCommand(),
  },
  { name: 'worker', load: async () => (await import('./commands/worker.js')).workerCommand() },
  { name: 'start', load: async () => (await import('./commands/start.js')).startCommand() },
  { name: 'ops', load: async () => (await import('./commands/ops.js')).opsCommand() },
];

/** How `paw --help` lists a command: the term (name, options, arguments) and its description. */
interface ListedCommand {
  readonly name: string;
  readonly term: string;
  readonly description: string;
}

/**
 * The listing of every command, as `paw --help` shows it, from the commands themselves: `npm run
 * build` (bin/build.mjs) writes it beside the compiled program as `command-index.json`, so that
 * a build answers `paw --help` without loading every command (and BullMQ, the simulator and the
 * dashboard with them). A build is only run when it is of the sources as they are (bin/paw.js),
 * so the listing cannot be stale; running from the sources, there is none, and every command
 * is loaded.
 * @public (called by bin/build.mjs)
 */
export async function commandIndex(): Promise<ListedCommand[]> {
  const program = await buildProgram(undefined, null);
  const help = program.createHelp();
  return program.commands.map((command) => ({
    name: command.name(),
    term: help.subcommandTerm(command),
    description: help.subcommandDescription(command),
  }));
}

/** The build's command index; null running from the sources (or a build without one). */
function readCommandIndex(): readonly ListedCommand[] | null {
  try {
    const url = new URL('./command-index.json', import.meta.url);
    return JSON.parse(readFileSync(url, 'utf8')) as ListedCommand[];
  } catch {
    return null;
  }
}

/**
 * Builds the command tree. Given the command line, it loads only the command named there (when
 * it names one, or `help <command>` does); otherwise, for `paw --help`, a typo or no command at
 * all, every command is listed, so that help and "did you mean" see them all: from the build's
 * command index when there is one (each command a name and its listing, loaded by nothing), else
 * by loading every command.
 */
export async function buildProgram(
  argv?: readonly string[],
  listing: readonly ListedCommand[] | null = readCommandIndex(),
): Promise<Command> {
  const program = new Command('paw')
    .description('paw, the platform automation worker')
    .version(PAW_VERSION)
    // A command's options are its own, even where a subcommand shares their names
    // (`paw schedules --json` lists; `paw schedules pause <id> --json` pauses).
    .enablePositionalOptions()
    .addHelpText(
      'after',
      '\nExit codes: 0 success, 1 platform or job failure, 2 bad usage or configuration.',
    );

  const named = argv?.[2] === 'help' ? argv[3] : argv?.[2];
  const only = COMMANDS.find((command) => command.name === named);
  if (only !== undefined) {
    program.addCommand(await only.load());
  } else if (listing !== null) {
    for (const listed of listing) program.addCommand(new Command(listed.name));
    const byName = new Map(listing.map((listed) => [listed.name, listed]));
    const standard = new Help(); // for what is not a listed command (commander's `help`)
    program.configureHelp({
      subcommandTerm: (command) =>
        byName.get(command.name())?.term ?? standard.subcommandTerm(command),
      subcommandDescription: (command) =>
        byName.get(command.name())?.description ?? standard.subcommandDescription(command),
    });
  } else {
    for (const command of COMMANDS) program.addCommand(await command.load());
  }

  applyCommonBehaviour(program);
  return program;
}

/**
 * Commander copies settings only to subcommands made with `.command()`, not to ones added with
 * `.addCommand()`, so the shared behaviour is applied to the whole tree once it is built: errors
 * are thrown (main maps them to exit code 2) instead of exiting from deep inside a parse.
 */
function applyCommonBehaviour(command: Command): void {
  command.exitOverride().showHelpAfterError('(run with --help for usage)');
  for (const sub of command.commands) applyCommonBehaviour(sub);
}
