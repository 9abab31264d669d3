import { describe, expect, it } from 'vitest';
import type { DefinitionGrid } from '../../../src/ops/dashboard/coverage-grid.js';
import { renderCoveragePage } from '../../../src/ops/dashboard/coverage-page.js';

const HOSTILE = '<img src=x onerror="alert(1)">';

describe('the coverage page', () => {
  it('escapes every text the platform names: workload names, ids, reasons, definition ids', () => {
    const grid: DefinitionGrid = {
      coverage: {
        definitionId: `nightly${HOSTILE}`,
        enabled: true,
        protectedSince: null,
        counts: { protected: 0, failing: 1, stale: 0, skipped: 0, never: 0 },
      },
      runs: [{ runId: `r1${HOSTILE}`, fireTime: '2026-11-27T01:00:00.000Z' }],
      rows: [
        {
          workloadId: `w1${HOSTILE}`,
          name: `vm${HOSTILE}`,
          state: 'failing',
          lastSuccessAt: null,
          failureStreak: 1,
          lastRunId: 'r1',
          reason: `failed: ${HOSTILE}`,
          skippedSince: null,
          marks: ['failed'],
        },
      ],
      total: 1,
      offset: 0,
    };
    const page = renderCoveragePage(
      [grid],
      { sort: 'state', rows: 100, offset: 0 },
      '2026-11-27T04:00:00.000Z',
      {
        role: 'scheduler',
        version: 'test',
        queuesUi: true,
        refreshSeconds: 10,
        retry: { offered: true },
      },
    );
    expect(page).not.toContain('<img');
    expect(page).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;');
    // Each mark says what it is in words, not by colour alone.
    expect(page).toMatch(/aria-label="r1&lt;img[^"]*: failed"/);
  });
});
