import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** `npm run bench -- takeover …` without npm: tsx on the dispatcher, as package.json runs it. */
function takeover(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'bench/run.ts', 'takeover', ...args],
    { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
  );
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('npm run bench -- takeover', () => {
  it("prints its usage with paw's own lock defaults for --help", () => {
    const { status, stdout } = takeover(['--help']);
    expect(status).toBe(0);
    // The defaults come from the settings schema, not from a copy in the benchmark.
    expect(stdout).toMatch(/--lock-ms N\s+worker\.lockDurationMs .*default, 3000\)/);
    expect(stdout).toMatch(/--stalled-ms N\s+worker\.stalledIntervalMs .*default, 1000\)/);
  });

  it('refuses a lock paw itself would refuse, naming the option, with exit code 2', () => {
    const { status, stderr } = takeover(['--lock-ms', '10']);
    expect(status).toBe(2);
    expect(stderr).toMatch(/^--lock-ms: .*1000/m);
  });
});
