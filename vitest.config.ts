import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'bench/**/*.test.ts'],
    globalSetup: ['test/testkit/global-setup.ts'],
    // Tests start real servers and processes: forks isolate them best.
    pool: 'forks',
    // Most of a test's time is spent waiting on the processes, servers and timers it drives, not
    // on the CPU, so two files at a time halve the suite even on two cores (vitest's default would
    // be one: cores - 1). On this 2-core machine `time npm test` went from 410 s to 195 s.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // A test's timeout only catches a hang (timing goals live in bench/): many tests run a few
    // `paw` processes, each seconds to start on a loaded machine (two suites at once on two
    // cores, with other work), and 60 s failed some of them there.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // The JSON report is what .ci/run summarises into its `N passed, N failed` line.
    reporters: ['default', ['json', { outputFile: 'reports/vitest.json' }]],
  },
});
