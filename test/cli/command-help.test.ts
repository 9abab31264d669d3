import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';

function allCommands(command: Command): Command[] {
  return [command, ...command.commands.flatMap(allCommands)];
}

function helpOf(command: Command): string {
  let text = '';
  command.configureOutput({
    writeOut: (chunk) => (text += chunk),
    writeErr: (chunk) => (text += chunk),
  });
  command.outputHelp();
  return text;
}

const program = await buildProgram();

describe('every platform command explains itself', () => {
  const platformGroups = [
    'workloads',
    'snapshot',
    'sla',
    'clusters',
    'events',
    'accounts',
    'cluster-session',
    'login',
  ];
  const commands = allCommands(program).filter((command) => {
    let root: Command = command;
    while (root.parent !== null && root.parent !== program) root = root.parent;
    return root !== program && platformGroups.includes(root.name());
  });

  it('registers every command group of the platform', () => {
    expect(program.commands.map((command) => command.name())).toEqual(
      expect.arrayContaining(platformGroups),
    );
    expect(commands.length).toBeGreaterThanOrEqual(28);
  });

  it.each(commands.map((command) => [commandPath(command), command] as const))(
    '%s has a description and an example in its --help',
    (_path, command) => {
      const help = helpOf(command);
      expect(command.description()).not.toBe('');
      expect(help).toMatch(/Examples:\n {2}\$ paw /);
    },
  );
});

/** The operator's verbs of issue 13: pause, backfill, retry, preview (run --dry-run), calendars. */
describe("the operator's verbs are in paw --help and explain themselves", () => {
  const find = (path: string): Command | undefined =>
    allCommands(program).find((command) => commandPath(command) === `paw ${path}`);
  const verbs = ['schedules', 'schedules pause', 'schedules unpause', 'backfill', 'retry', 'run'];

  it('lists each in paw --help (pause and unpause under schedules)', () => {
    const help = helpOf(program);
    for (const name of ['schedules', 'backfill', 'retry', 'run']) {
      expect(help).toMatch(new RegExp(`^ {2}${name} `, 'm'));
    }
    const schedules = helpOf(find('schedules') ?? program);
    expect(schedules).toMatch(/^ {2}pause \[options\] <id> /m);
    expect(schedules).toMatch(/^ {2}unpause \[options\] <id> /m);
    expect(helpOf(find('run') ?? program)).toMatch(/--dry-run/);
  });

  it.each(verbs)('paw %s has a description, --json and an example', (path) => {
    const command = find(path);
    expect(command, path).toBeDefined();
    if (command === undefined) return;
    expect(command.description()).not.toBe('');
    expect(command.options.map((option) => option.long)).toContain('--json');
    expect(helpOf(command)).toMatch(new RegExp(`Examples:\\n {2}\\$ paw ${path.split(' ')[0]}`));
  });
});

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current !== null; current = current.parent)
    names.unshift(current.name());
  return names.join(' ');
}
