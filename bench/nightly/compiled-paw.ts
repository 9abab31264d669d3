import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { heapArguments, type HeapChoice } from './pod-heap.js';

/**
 * paw as the container image runs it: `src/` built by `bin/build.mjs` (tsc, and the Lua
 * scripts copied beside the JavaScript, as the image's build stage does), run with
 * plain `node` (no tsx transforming the sources in the process, which costs start-up CPU and
 * about 60 MB of memory per process). Compiled into a sibling of `dist/`, because paw reads
 * package.json one level above its compiled folder; removed when the benchmark ends.
 */
export interface PawCommand {
  /** node arguments before paw's own (`[main]`). */
  readonly entry: readonly string[];
  readonly describe: string;
  remove(): Promise<void>;
}

export async function compiledPaw(): Promise<PawCommand> {
  const outDir = `.dist-bench-${randomUUID().slice(0, 8)}`;
  try {
    await promisify(execFile)(process.execPath, ['bin/build.mjs', '--outDir', outDir]);
  } catch (error) {
    // tsc writes what it could compile even when it fails: leave nothing behind.
    await rm(outDir, { recursive: true, force: true });
    throw error;
  }
  return {
    entry: [`${outDir}/cli/main.js`],
    describe: 'compiled (tsc, as the container image runs it)',
    remove: () => rm(outDir, { recursive: true, force: true }),
  };
}

/**
 * paw from its TypeScript sources through tsx, as `bin/paw.js` runs them when there is no
 * current build (it runs the build when there is one).
 */
export function sourcePaw(): PawCommand {
  return {
    entry: ['--import', 'tsx', 'src/cli/main.ts'],
    describe: 'from source (src/cli/main.ts through tsx)',
    remove: async () => undefined,
  };
}

/**
 * The same command with `node --cpu-prof` into `dir` (one `.cpuprofile` per paw process, written
 * when it exits): where paw's CPU goes, for BENCHMARKS.md. Unchanged when `dir` is undefined.
 */
export function withCpuProfiles(command: PawCommand, dir: string | undefined): PawCommand {
  if (dir === undefined) return command;
  return {
    ...command,
    entry: ['--cpu-prof', '--cpu-prof-dir', dir, ...command.entry],
    describe: `${command.describe}, with CPU profiles in ${dir}`,
  };
}

/** The same command with the V8 heap `choice` gives each paw process (bench/nightly/pod-heap.ts). */
export function withHeap(command: PawCommand, choice: HeapChoice): PawCommand {
  const heap = heapArguments(choice);
  return {
    ...command,
    entry: [...heap.args, ...command.entry],
    describe: `${command.describe}, ${heap.describe}`,
  };
}
