import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of bin/, shared by bin/paw.js and bin/build.mjs
import { sourceStamp } from '../../bin/source-stamp.mjs';

const stampOf = sourceStamp as (root: string) => string;

/**
 * bin/paw.js runs the build only when its stamp is the sources' stamp now: every change a
 * checkout, a pull or an editor makes to the sources (a file changed, added or removed) must
 * change the stamp, or a stale build would run.
 */
describe('the stamp bin/paw.js compares the build with', () => {
  let root: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'paw-stamp-'));
    await mkdir(join(root, 'src', 'cli'), { recursive: true });
    await mkdir(join(root, 'bin'));
    for (const file of ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'bin/build.mjs']) {
      await writeFile(join(root, file), '{}');
    }
    await writeFile(join(root, 'src', 'cli', 'main.ts'), 'export {};\n');
  });

  afterAll(() => rm(root, { recursive: true, force: true }));

  it('stays the same while nothing changes, and changes with any edit, new file or removal', async () => {
    const first = stampOf(root);
    expect(stampOf(root)).toBe(first);

    const later = new Date(Date.now() + 5_000);
    await utimes(join(root, 'src', 'cli', 'main.ts'), later, later);
    const touched = stampOf(root);
    expect(touched).not.toBe(first);

    await writeFile(join(root, 'src', 'cli', 'added.lua'), 'return 1\n');
    const added = stampOf(root);
    expect(added).not.toBe(touched);

    await rm(join(root, 'src', 'cli', 'added.lua'));
    expect(stampOf(root)).toBe(touched);

    await writeFile(join(root, 'tsconfig.build.json'), '{ "compilerOptions": {} }');
    expect(stampOf(root)).not.toBe(touched);
  });
});
