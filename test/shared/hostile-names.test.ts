import { describe, expect, it } from 'vitest';
import { html } from '../../src/ops/dashboard/html.js';
import {
  digestSlackMessage,
  type CoverageDigest,
} from '../../src/job-kinds/snapshot/coverage/coverage-digest.js';
import { slackMessage, type RunSummary } from '../../src/job-kinds/notify/run-summary.js';
import { printable } from '../../src/shared/printable.js';

/**
 * A hostile platform's name: a right-to-left override (reorders a row), a zero-width space and a
 * byte-order mark (look like nothing, so two names look alike), an escape sequence (clears a
 * terminal), and a line feed followed by a forged line.
 */
const HOSTILE = 'vm\u202eexe.\u200b\ufeff\u2066\u200d\x1b[2J\n:white_check_mark: all protected';

/** Any character the one text functions must never let through raw. */
const RAW =
  // eslint-disable-next-line no-control-regex -- finding them is the point
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060\u2066-\u2069\ufeff]/;

const SHOWN = [String.raw`\u202e`, String.raw`\u200b`, String.raw`\ufeff`, String.raw`\u2066`];

describe("a hostile platform's names are shown, never acted on", () => {
  it('on a terminal', () => {
    const text = printable(HOSTILE);
    expect(RAW.exec(text)).toBeNull();
    for (const shown of [...SHOWN, String.raw`\x1b[2J`, String.raw`\n`])
      expect(text).toContain(shown);
  });

  it('on a page (the coverage grid, the dashboard): one HTML function', () => {
    const page = html`<td>${HOSTILE}</td>
      <td title="${HOSTILE}"></td>`.text;
    // Line feeds are folded by the page; everything else is escaped.
    expect(RAW.exec(page.replace(/\n/g, ''))).toBeNull();
    for (const shown of [...SHOWN, String.raw`\x1b[2J`]) expect(page).toContain(shown);
  });

  it('in a Slack message: a workload name forges no line', () => {
    const summary: RunSummary = {
      source: 'paw',
      event: 'run.ended',
      deliveryId: 'paw-run-r1',
      run: {
        runId: 'r1',
        definitionId: 'nightly',
        kind: 'snapshot',
        status: 'failed',
        trigger: 'schedule',
        fireTime: '2026-11-29T01:00:00.000Z',
        attempts: 1,
        reason: HOSTILE,
        counts: {
          total: 1,
          queued: 0,
          running: 0,
          succeeded: 0,
          failed: 1,
          timedOut: 0,
          canceled: 0,
          skipped: 0,
        },
      },
      failures: [{ itemKey: 'w1', status: 'failed', targetName: HOSTILE, errorMessage: HOSTILE }],
      failuresNotListed: 0,
    };
    const { text } = slackMessage(summary);
    expect(text.split('\n')).toHaveLength(4);
    expect(text).not.toMatch(/^:white_check_mark:/m);
    expect(RAW.exec(text.replace(/\n/g, ''))).toBeNull();
    for (const shown of SHOWN) expect(text).toContain(shown);

    const digest: CoverageDigest = {
      source: 'paw',
      event: 'coverage.digest',
      deliveryId: 'paw-coverage-nightly-2026-11-29',
      definitionId: 'nightly',
      day: '2026-11-29',
      generatedAt: '2026-11-29T06:00:00.000Z',
      counts: { protected: 0, failing: 1, stale: 0, skipped: 0, never: 0 },
      workloads: [
        {
          workloadId: 'w1',
          name: HOSTILE,
          state: 'failing',
          failureStreak: 2,
          lastSuccessAt: null,
          reason: HOSTILE,
        },
      ],
      workloadsNotListed: 0,
    };
    const digestText = digestSlackMessage(digest).text;
    expect(digestText.split('\n')).toHaveLength(2);
    expect(RAW.exec(digestText.replace(/\n/g, ''))).toBeNull();
  });
});
