import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_OVERRIDES } from '../../src/config/environment-overrides.js';
import { settingsSchema } from '../../src/config/settings-schema.js';

/**
 * docs/configuration.md is the reference of every setting: this keeps it from drifting from the
 * schema (every setting, with its default) and from the table of variables (every variable, on
 * its setting's row).
 */
const DOC = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');

/** Settings that have neither a default nor a variable, so walking the defaults misses them. */
const OPTIONAL_WITHOUT_DEFAULT = [
  'queues.snapshot.globalConcurrency',
  'queues.slaWindow.globalConcurrency',
];

/** Every table row of the page, as cells. */
const ROWS: string[][] = DOC.split('\n')
  .filter((line) => line.startsWith('|') && !/^\|\s*-/.test(line))
  .map((line) =>
    line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim()),
  );

function rowOf(path: string): string[] | undefined {
  return ROWS.find((cells) => (cells[0] ?? '').includes(`\`${path}\``));
}

/** Every leaf of the defaults, with its value. */
function defaultLeaves(): Map<string, unknown> {
  const leaves = new Map<string, unknown>();
  const walk = (value: unknown, path: string[]): void => {
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const entries = Object.entries(value);
      if (entries.length === 0) leaves.set(path.join('.'), value);
      for (const [key, child] of entries) walk(child, [...path, key]);
      return;
    }
    leaves.set(path.join('.'), value);
  };
  walk(settingsSchema.parse({}), []);
  return leaves;
}

describe('docs/configuration.md', () => {
  const leaves = defaultLeaves();
  const variables = new Map(
    ENVIRONMENT_OVERRIDES.map((override) => [override.path.join('.'), override.variable]),
  );
  const documented = new Set([
    ...[...leaves.keys()].filter((path) => typeof leaves.get(path) !== 'object'),
    ...variables.keys(),
    ...OPTIONAL_WITHOUT_DEFAULT,
  ]);

  it.each([...documented].sort())('documents %s with its variable and default', (path) => {
    const row = rowOf(path);
    expect(row, `docs/configuration.md has no table row for \`${path}\``).toBeDefined();
    const [, variableCell = '', defaultCell = ''] = row ?? [];
    const variable = variables.get(path);
    if (variable === undefined) {
      expect(variableCell, `${path} has no variable, yet its row names one`).not.toMatch(/PAW_/);
    } else {
      expect(variableCell).toContain(`\`${variable}\``);
    }
    const value = leaves.get(path);
    if (['string', 'number', 'boolean'].includes(typeof value)) {
      expect(defaultCell, `the default of ${path}`).toContain(`\`${String(value)}\``);
    }
  });

  it('lists every variable of the table once, and no variable that does not exist', () => {
    const known = new Set([...variables.values(), 'PAW_CONFIG_DIR']);
    const mentioned = new Set(DOC.match(/PAW_[A-Z0-9_]+/g) ?? []);
    for (const variable of variables.values()) expect(mentioned).toContain(variable);
    expect([...mentioned].filter((variable) => !known.has(variable))).toEqual([]);
  });

  it('documents route overrides', () => {
    expect(DOC).toContain('`platform.routes.<operationId>.method`');
  });
});
