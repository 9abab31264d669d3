#!/usr/bin/env node
// Builds paw as the container image, `npm run build`, the benchmarks and the deploy tests run it:
// src/ compiled by tsc (tsconfig.build.json), then the Redis scripts (src/**/*.lua) and the
// platform's whole published GraphQL schema (src/**/*.graphql), which tsc does not copy, beside
// the JavaScript, in the same folders: paw loads each from its compiled folder
// (src/redis/lua-file.ts, src/platform/graphql/schema/platform-schema.ts).
//
// The build carries the stamp of the sources it was compiled from (bin/source-stamp.mjs, taken
// before tsc starts, so an edit during the build leaves it stale): bin/paw.js runs dist/ only
// when it matches the sources.
//
// Usage: node bin/build.mjs [--outDir DIR]   (DIR: dist/ unless given; relative to the
// repository). Exit code: tsc's when it fails (what it compiled is left for the caller to
// remove), else 0.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { STAMP_FILE, sourceStamp } from './source-stamp.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const source = join(root, 'src');
const at = process.argv.indexOf('--outDir');
const outDir = join(root, at < 0 ? 'dist' : (process.argv[at + 1] ?? 'dist'));

const stamp = sourceStamp(root);
// A build that fails half-way is not a build of these sources.
rmSync(join(outDir, STAMP_FILE), { force: true });
rmSync(join(outDir, 'cli', 'command-index.json'), { force: true });

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(
  process.execPath,
  [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', outDir],
  { stdio: 'inherit' },
);
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

/** Every file under `folder` that paw reads at run time: `.lua` and `.graphql`. */
function runtimeFiles(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return runtimeFiles(path);
    return entry.name.endsWith('.lua') || entry.name.endsWith('.graphql') ? [path] : [];
  });
}

for (const file of runtimeFiles(source)) {
  const target = join(outDir, relative(source, file));
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(file, target);
}

// `paw --help` from the build lists the commands from this index instead of loading them all
// (src/cli/program.ts, commandIndex).
const { commandIndex } = await import(pathToFileURL(join(outDir, 'cli', 'program.js')).href);
writeFileSync(
  join(outDir, 'cli', 'command-index.json'),
  `${JSON.stringify(await commandIndex(), null, 2)}\n`,
);

writeFileSync(join(outDir, STAMP_FILE), `${stamp}\n`);
