import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { accountsCommand } from './commands/accounts.js';
import { clusterSessionCommand } from './commands/cluster-session.js';
import { clustersCommand } from './commands/clusters.js';
import { demoCommand } from './commands/demo.js';
import { eventsCommand } from './commands/events.js';
import { loginCommand } from './commands/login.js';
import { outcomesCommand } from './commands/outcomes.js';
import { runCommand } from './commands/run.js';
import { runsCommand } from './commands/runs.js';
import { schedulerCommand } from './commands/scheduler.js';
import { schedulesCommand } from './commands/schedules.js';
import { simCommand } from './commands/sim.js';
import { slaCommand } from './commands/sla.js';
import { snapshotCommand } from './commands/snapshot.js';
import { startCommand } from './commands/start.js';
import { validateCommand } from './commands/validate.js';
import { workerCommand } from './commands/worker.js';
import { workloadsCommand } from './commands/workloads.js';

const packageJson = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as { version: string };

/**
 * Builds the command tree. Each command lives in its own file under `commands/` and is added
 * here, so this file is the table of contents of the CLI.
 */
export function buildProgram(): Command {
  const program = new Command('paw')
    .description('paw, the platform automation worker')
    .version(packageJson.version)
    .addHelpText(
      'after',
      '\nExit codes: 0 success, 1 platform or job failure, 2 bad usage or configuration.',
    );

  // Commands are added here, one line each.
  program.addCommand(demoCommand());
  program.addCommand(simCommand());
  program.addCommand(workloadsCommand());
  program.addCommand(snapshotCommand());
  program.addCommand(slaCommand());
  program.addCommand(clustersCommand());
  program.addCommand(eventsCommand());
  program.addCommand(accountsCommand());
  program.addCommand(clusterSessionCommand());
  program.addCommand(loginCommand());
  program.addCommand(validateCommand());
  program.addCommand(schedulerCommand());
  program.addCommand(schedulesCommand());
  program.addCommand(runCommand());
  program.addCommand(runsCommand());
  program.addCommand(outcomesCommand());
  program.addCommand(workerCommand());
  program.addCommand(startCommand());

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
