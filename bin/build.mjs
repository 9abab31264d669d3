#!/usr/bin/env node
// Builds paw as the container image, `npm run build`, the benchmarks and the deploy tests run it:
// src/ compiled by tsc (tsconfig.build.json), then the Redis scripts (src/**/*.lua, which tsc
// does not copy) beside the JavaScript, in the same folders: paw loads each from its compiled
// folder (src/redis/lua-file.ts).
//
// Usage: node bin/build.mjs [--outDir DIR]   (DIR: dist/ unless given; relative to the
// repository). Exit code: tsc's when it fails (what it compiled is left for the caller to
// remove), else 0.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const source = join(root, 'src');
const at = process.argv.indexOf('--outDir');
const outDir = join(root, at < 0 ? 'dist' : (process.argv[at + 1] ?? 'dist'));

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(
  process.execPath,
  [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', outDir],
  { stdio: 'inherit' },
);
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

/** Every file under `folder` whose name ends with `.lua`. */
function luaFiles(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return luaFiles(path);
    return entry.name.endsWith('.lua') ? [path] : [];
  });
}

for (const file of luaFiles(source)) {
  const target = join(outDir, relative(source, file));
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(file, target);
}
