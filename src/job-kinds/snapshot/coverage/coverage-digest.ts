import type { DefinitionCoverage } from './coverage-report.js';
import { slackEscape } from '../../notify/run-summary.js';

/** A failing or stale workload, as the digest lists it. */
interface DigestWorkload {
  readonly workloadId: string;
  readonly name: string;
  readonly state: string;
  readonly failureStreak: number;
  readonly lastSuccessAt: string | null;
  readonly reason: string | null;
}

/**
 * The JSON body of a definition's morning digest (`format: json`). Stable field names, like the
 * run summary's; `deliveryId` is the same for every retry of one day's digest.
 */
export interface CoverageDigest {
  readonly source: 'paw';
  readonly event: 'coverage.digest';
  readonly deliveryId: string;
  readonly definitionId: string;
  readonly day: string;
  readonly generatedAt: string;
  readonly counts: DefinitionCoverage['counts'];
  /** Failing workloads first (longest streak first), then stale ones; up to `maxListed`. */
  readonly workloads: readonly DigestWorkload[];
  /** How many failing or stale workloads are not listed. */
  readonly workloadsNotListed: number;
}

/** The digest of `coverage` for `day`, listing at most `maxListed` failing and stale workloads. */
export function buildCoverageDigest(
  coverage: DefinitionCoverage,
  day: string,
  generatedAt: string,
  maxListed: number,
): CoverageDigest {
  const rank = (state: string): number => (state === 'failing' ? 0 : 1);
  const notable = coverage.workloads
    .filter((row) => row.state === 'failing' || row.state === 'stale')
    .sort(
      (a, b) =>
        rank(a.state) - rank(b.state) ||
        b.failureStreak - a.failureStreak ||
        a.name.localeCompare(b.name),
    );
  return {
    source: 'paw',
    event: 'coverage.digest',
    deliveryId: `paw-digest-${coverage.definitionId}-${day}`,
    definitionId: coverage.definitionId,
    day,
    generatedAt,
    counts: coverage.counts,
    workloads: notable.slice(0, maxListed).map((row) => ({
      workloadId: row.workloadId,
      name: row.name,
      state: row.state,
      failureStreak: row.failureStreak,
      lastSuccessAt: row.lastSuccessAt,
      reason: row.reason,
    })),
    workloadsNotListed: Math.max(0, notable.length - maxListed),
  };
}

/** The Slack-compatible body (`format: slack`). */
export function digestSlackMessage(digest: CoverageDigest): { text: string } {
  const c = digest.counts;
  const lines = [
    `${c.failing + c.stale === 0 ? ':white_check_mark:' : ':warning:'} *paw coverage: ${slackEscape(digest.definitionId)}* on ${digest.day}: ` +
      `${c.protected} protected, ${c.failing} failing, ${c.stale} stale, ${c.skipped} skipped, ${c.never} never`,
  ];
  for (const row of digest.workloads) {
    const streak =
      row.state === 'failing'
        ? ` (${row.failureStreak} run${row.failureStreak === 1 ? '' : 's'})`
        : '';
    const since =
      row.lastSuccessAt === null ? 'never succeeded' : `last success ${row.lastSuccessAt}`;
    lines.push(
      `• ${slackEscape(row.name === '' ? row.workloadId : row.name)}: ${row.state}${streak}, ${since}` +
        (row.reason === null ? '' : ` — ${slackEscape(row.reason)}`),
    );
  }
  if (digest.workloadsNotListed > 0) lines.push(`…and ${digest.workloadsNotListed} more`);
  return { text: lines.join('\n') };
}
