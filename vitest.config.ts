import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // Tests start real servers and processes: forks isolate them best.
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The JSON report is what .ci/run summarises into its `N passed, N failed` line.
    reporters: ['default', ['json', { outputFile: 'reports/vitest.json' }]],
  },
});
