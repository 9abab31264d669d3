import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { RedisScript } from './redis-script.js';

/**
 * The folder the `.lua` files are found under: `src/` when paw runs from its sources, the
 * compiled folder (`dist/`) when it runs compiled, where `npm run build` copies them beside the
 * JavaScript (bin/build.mjs).
 */
const SOURCE_ROOT = new URL('../', import.meta.url);

/** `--- @include "<path under src/>"`: that file's Lua, once per script. */
const INCLUDE = /^--- @include "([^"]+)"\s*$/;

/** `--- @fragment <name>`: Lua the TypeScript that loads the script gives it (see luaScript). */
const FRAGMENT = /^--- @fragment (\w+)\s*$/;

/** `<verbName>-<number of keys>.lua`, as bullmq names its scripts. */
const SCRIPT_NAME = /^(\w+)-(\d+)\.lua$/;

/**
 * Loads a Redis script from its `.lua` file (a path under `src/`, named
 * `<verbName>-<number of keys>.lua`), with its includes resolved: call it once per script, at
 * module load, so that each file is read once per process. The script refuses a call with another
 * number of keys than its name says.
 *
 * A line `--- @include "<path under src/>"` is replaced by that file (itself resolved the same
 * way; a file included twice is inserted once, at its first include). A line `--- @fragment
 * <name>` is replaced by `fragments[name]`: Lua that exists only as a string (BullMQ's own
 * scripts, or a list whose one home is TypeScript). Every fragment the files name must be given,
 * and every one given must be named.
 */
export function luaScript(
  path: string,
  fragments: Readonly<Record<string, string>> = {},
): RedisScript {
  const name = SCRIPT_NAME.exec(basename(path));
  if (name === null) {
    throw new Error(`${path}: a Redis script file is named <verbName>-<number of keys>.lua`);
  }
  const used = new Set<string>();
  const lua = resolve(path, fragments, new Set(), used);
  const unused = Object.keys(fragments).filter((fragment) => !used.has(fragment));
  if (unused.length > 0) {
    throw new Error(`${path}: given fragments it never names: ${unused.join(', ')}`);
  }
  return new RedisScript(`paw-${name[1] ?? ''}`, lua, Number(name[2]));
}

function resolve(
  path: string,
  fragments: Readonly<Record<string, string>>,
  included: Set<string>,
  used: Set<string>,
): string {
  included.add(path);
  const lines = readFileSync(new URL(path, SOURCE_ROOT), 'utf8').split('\n');
  return lines
    .map((line) => {
      const include = INCLUDE.exec(line)?.[1];
      if (include !== undefined) {
        return included.has(include) ? '' : resolve(include, fragments, included, used);
      }
      const fragment = FRAGMENT.exec(line)?.[1];
      if (fragment !== undefined) {
        const lua = fragments[fragment];
        if (lua === undefined) throw new Error(`${path}: no fragment "${fragment}" was given`);
        used.add(fragment);
        return lua;
      }
      return line;
    })
    .join('\n');
}
