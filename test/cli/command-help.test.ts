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

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current !== null; current = current.parent)
    names.unshift(current.name());
  return names.join(' ');
}
