import { Command } from 'commander';
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

/**
 * Builds the command tree. Given the command line, it loads only the command named there (when
 * it names one); otherwise, for `paw --help`, a typo or no command at all, it loads every command
 * so that help and "did you mean" see them all.
 */
export async function buildProgram(argv?: readonly string[]): Promise<Command> {
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

  const named = argv?.[2];
  const only = COMMANDS.find((command) => command.name === named);
  for (const command of only === undefined ? COMMANDS : [only]) {
    program.addCommand(await command.load());
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
