import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../', import.meta.url);

/** The folders docs/architecture.md describes: the rows of its "Where things live" table. */
function describedFolders(): string[] {
  const doc = readFileSync(new URL('docs/architecture.md', ROOT), 'utf8');
  const section = doc.slice(doc.indexOf('## Where things live'), doc.indexOf('## Layers'));
  return [...section.matchAll(/^\| `src\/([\w-]+)\/` +\|/gm)].map((match) => match[1] ?? '');
}

/** Each row of the "Where things live" table: the folder, and what its row says. */
function describedRows(): Map<string, string> {
  const doc = readFileSync(new URL('docs/architecture.md', ROOT), 'utf8');
  const section = doc.slice(doc.indexOf('## Where things live'), doc.indexOf('## Layers'));
  return new Map(
    [...section.matchAll(/^\| `src\/([\w-]+)\/` +\|(.*)\|$/gm)].map((match) => [
      match[1] ?? '',
      match[2] ?? '',
    ]),
  );
}

/** The layers `npm run lint` enforces, highest first. */
function layers(): string[] {
  const config = readFileSync(new URL('.dependency-cruiser.cjs', ROOT), 'utf8');
  const list = /const LAYERS = \[([^\]]*)\]/.exec(config)?.[1] ?? '';
  return [...list.matchAll(/'([\w-]+)'/g)].map((match) => match[1] ?? '');
}

describe('the layout is the architecture', () => {
  const folders = readdirSync(new URL('src/', ROOT), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();

  it('has at most 12 folders under src/, each described by docs/architecture.md, and no other', () => {
    expect(folders.length).toBeLessThanOrEqual(12);
    expect(describedFolders().sort()).toEqual(folders);
  });

  it("names every subfolder in its folder's row, so a new one is placed on purpose", () => {
    const source = fileURLToPath(new URL('src/', ROOT));
    const rows = describedRows();
    const unnamed: string[] = [];
    for (const folder of folders) {
      const row = rows.get(folder) ?? '';
      const subfolders = readdirSync(join(source, folder), { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => relative(join(source, folder), join(entry.parentPath, entry.name)));
      for (const subfolder of subfolders) {
        const path = subfolder.split(sep).join('/');
        const name = path.split('/').at(-1) ?? '';
        // Named by its path under the folder, or (a nested one) by its own name.
        if (!row.includes(`\`${path}/\``) && !row.includes(`\`${name}/\``)) {
          unnamed.push(`src/${folder}/${path}/`);
        }
      }
    }
    expect(unnamed).toEqual([]);
  });

  it('lists the folders in the same order in the document, its layer list and the lint rules', () => {
    expect(layers().sort()).toEqual(folders);
    const doc = readFileSync(new URL('docs/architecture.md', ROOT), 'utf8');
    const order = /From the top: (.*?)\. So/s.exec(doc)?.[1]?.replace(/\s+/g, ' ') ?? '';
    expect([...order.matchAll(/`([\w-]+)`/g)].map((match) => match[1])).toEqual(layers());
  });

  it('lets a Redis script include only Lua of its own layer or one below (the lint cannot see .lua files)', () => {
    const source = fileURLToPath(new URL('src/', ROOT));
    const order = layers();
    const layerOf = (path: string): number => order.indexOf(path.split('/')[0] ?? '');
    const luaFiles = (readdirSync(source, { recursive: true }) as string[])
      .filter((path) => path.endsWith('.lua'))
      .map((path) => relative(source, join(source, path)));
    expect(luaFiles.length).toBeGreaterThan(0);
    const upward: string[] = [];
    for (const file of luaFiles) {
      const lua = readFileSync(join(source, file), 'utf8');
      for (const [, included = ''] of lua.matchAll(/^--- @include "([^"]+)"/gm)) {
        expect(
          readFileSync(join(source, included), 'utf8'),
          `${file} includes ${included}`,
        ).toBeTruthy();
        if (layerOf(included) < layerOf(file)) upward.push(`${file} includes ${included}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('keeps every Redis script in a .lua file: no TypeScript under src/ holds one as a string', () => {
    const source = fileURLToPath(new URL('src/', ROOT));
    const inline = (readdirSync(source, { recursive: true }) as string[])
      .filter((path) => path.endsWith('.ts'))
      .filter((path) => {
        const text = readFileSync(join(source, path), 'utf8');
        const constructs =
          /new RedisScript\(/.test(text) && !path.endsWith(join('redis', 'lua-file.ts'));
        return constructs || /redis\.call\(|defineCommand\(/.test(text);
      });
    expect(inline).toEqual([]);
  });
});

/**
 * Folders under test/ that mirror nothing in src/, and why: the kit every test and bench/ share
 * (simulator, Redis, the paw process helper, `eventually`), and the deploy files' tests (the
 * image, the manifests, the alert rules live outside src/). bench/ keeps its own tests beside
 * what they test.
 */
const TEST_FOLDERS_WITHOUT_SOURCE = ['testkit', 'deploy'];

function holdsTypeScript(folder: string): boolean {
  return readdirSync(folder, { recursive: true, withFileTypes: true }).some(
    (entry) => entry.isFile() && entry.name.endsWith('.ts'),
  );
}

describe('test/ mirrors src/', () => {
  it('has a folder under src/ for every folder of tests under test/ (but the kit and deploy)', () => {
    const tests = fileURLToPath(new URL('test/', ROOT));
    const source = fileURLToPath(new URL('src/', ROOT));
    const orphans = readdirSync(tests, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => relative(tests, join(entry.parentPath, entry.name)))
      .filter((folder) => !TEST_FOLDERS_WITHOUT_SOURCE.includes(folder.split(sep)[0] ?? ''))
      .filter((folder) => !existsSync(join(source, folder)))
      // A folder of data only (the GraphQL corpus's documents) is a fixture, not test code.
      .filter((folder) => holdsTypeScript(join(tests, folder)));
    expect(orphans).toEqual([]);
  });
});

/** Where tests live: vitest's `include` (vitest.config.ts). */
const TEST_ROOTS = ['test/', 'bench/'];

describe('no test is retried', () => {
  // A test that fails once has found a bug (in paw, the simulator or the test): a retry hides it.
  it('has retry 0 in the configuration and no retry option in any test file', () => {
    const config = readFileSync(new URL('vitest.config.ts', ROOT), 'utf8');
    expect(config).toMatch(/^\s+retry: 0,$/m);
    const retried = TEST_ROOTS.flatMap((root) => {
      const folder = fileURLToPath(new URL(root, ROOT));
      return (readdirSync(folder, { recursive: true }) as string[])
        .filter((path) => path.endsWith('.ts'))
        .filter((path) =>
          /\bretry: *[1-9]|setConfig\([^)]*retry/.test(readFileSync(join(folder, path), 'utf8')),
        )
        .map((path) => root + path);
    });
    expect(retried).toEqual([]);
  });
});
