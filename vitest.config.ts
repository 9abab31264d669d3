import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'bench/**/*.test.ts'],
    globalSetup: ['test/testkit/global-setup.ts'],
    // Tests start real servers and processes: forks isolate them best.
    pool: 'forks',
    // Most of a test's time is spent waiting on the processes, servers and timers it drives (a
    // platform answering in seconds), not on the CPU, so more files at a time than cores shorten
    // the suite (vitest's default would be cores - 1). On this 2-core machine `time npm test`
    // went from 410 s to 195 s with two files at a time (an earlier, smaller suite), and on
    // 2026-11-29 from 639 s to 462 s with three instead of two.
    maxWorkers: availableParallelism() + 1,
    // A test's timeout only catches a hang (timing goals live in bench/): many tests run a few
    // `paw` processes, each seconds to start on a loaded machine (two suites at once on two
    // cores, with other work), and 60 s failed some of them there.
    // A test that fails once has found a bug (in paw, the simulator or the test): none is run
    // again to hide it (vitest's default, said here; test/architecture.test.ts checks it stays).
    retry: 0,
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // The JSON report is what .ci/run summarises into its `N passed, N failed` line.
    reporters: ['default', ['json', { outputFile: 'reports/vitest.json' }]],
  },
});
