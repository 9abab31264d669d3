import { execFile } from 'node:child_process';
import { totalmem } from 'node:os';
import { promisify } from 'node:util';
import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { heapArguments, podMemoryLimitBytes, v8OldGenerationMb } from './pod-heap.js';

const MIB = 1024 * 1024;
/** The young generation on top of the old one: 3 semi-spaces of at most 16 MB. */
const YOUNG_AT_MOST_MB = 48;

/** The memory Node sizes V8's heap from here: the RAM, or the cgroup's limit when smaller. */
function memoryForV8(): number {
  const constrained = process.constrainedMemory?.() ?? 0;
  return constrained > 0 ? Math.min(totalmem(), constrained) : totalmem();
}

describe("the bench's pod heap", () => {
  it("takes the pod's memory limit from the worker manifest (512 MiB)", () => {
    expect(podMemoryLimitBytes()).toBe(512 * MIB);
  });

  it("states V8's rule as this Node applies it: the heap limit is the old generation plus a young one", () => {
    const oldMb = v8OldGenerationMb(memoryForV8());
    const limitMb = getHeapStatistics().heap_size_limit / MIB;
    expect(limitMb).toBeGreaterThanOrEqual(oldMb);
    expect(limitMb).toBeLessThanOrEqual(oldMb + YOUNG_AT_MOST_MB);
  });

  it('gives a paw process the old generation of a 512 MiB pod: 256 MB', async () => {
    const { args, describe: said } = heapArguments('pod');
    expect(args).toEqual(['--max-old-space-size=256']);
    expect(said).toContain('512 MiB');
    const { stdout } = await promisify(execFile)(process.execPath, [
      ...args,
      '-p',
      'require("node:v8").getHeapStatistics().heap_size_limit',
    ]);
    const limitMb = Number(stdout) / MIB;
    expect(limitMb).toBeGreaterThanOrEqual(256);
    expect(limitMb).toBeLessThanOrEqual(256 + YOUNG_AT_MOST_MB);
  });

  it("leaves the host's heap alone when asked", () => {
    expect(heapArguments('host').args).toEqual([]);
  });
});
