import type { JobKind } from '../../definitions/job-definition.js';
import type { ItemRecord, RunRecord } from '../../outcomes/outcome-records.js';
import { isActiveStatus } from '../../outcomes/outcome-status.js';

/** A run with its items, as the demo read them at the end. */
export interface EndedRun {
  readonly run: RunRecord;
  readonly items: readonly ItemRecord[];
}

/** One thing the demo checked. */
export interface DemoCheck {
  readonly ok: boolean;
  readonly what: string;
  /** Why it failed (or a note when it passed). */
  readonly detail?: string;
}

/**
 * Item failures the simulator causes on purpose, which paw must record, not prevent: a snapshot
 * job the platform failed (`SNAPSHOT_FAILED`, `--failure-rate`) or canceled (`--cancel-rate`), and
 * a cluster whose pause state the platform cannot tell (a skipped pause).
 */
function explainedBySimulator(kind: JobKind, item: ItemRecord): boolean {
  switch (item.status) {
    case 'succeeded':
      return true;
    case 'canceled':
      return kind === 'snapshot';
    case 'failed':
      return kind === 'snapshot' && item.errorCode === 'SNAPSHOT_FAILED';
    case 'skipped':
      // Unsupported workload types (none are selected) and clusters in state UNKNOWN.
      return kind !== 'rotate-secret';
    default:
      return false;
  }
}

/**
 * What "everything behaved as the simulator's faults allow" means for the demo:
 * - every kind ran at least once and every run ended (none left queued or running);
 * - no fire was missed (the scheduler ran throughout) and no run failed for a reason of its
 *   own (a run-level error);
 * - every item that did not succeed is explained by a fault the simulator injects on purpose:
 *   a snapshot job the platform failed or canceled, a cluster whose pause state is unknown.
 *   A timed-out snapshot, or any other failure, is paw's and fails the demo.
 * Skipped runs (a fire while the previous run of the same definition was still going, with
 * `overlap: skip`) are policy, not failure.
 */
export function judgeDemoRuns(runs: readonly EndedRun[]): DemoCheck[] {
  const checks: DemoCheck[] = [];
  for (const kind of ['snapshot', 'sla-window', 'rotate-secret'] as const) {
    const ran = runs.filter(({ run }) => run.kind === kind && run.status !== 'skipped');
    const ended = ran.filter(({ run }) => !isActiveStatus(run.status));
    checks.push({
      ok: ended.length > 0,
      what: `a ${kind} run took place and ended`,
      ...(ended.length > 0
        ? {}
        : {
            detail:
              ran.length === 0
                ? 'none fired: give the demo more time (--for)'
                : 'none ended (is a worker running this kind?)',
          }),
    });
  }
  const active = runs.filter(({ run }) => isActiveStatus(run.status));
  checks.push({
    ok: active.length === 0,
    what: 'every run ended',
    ...(active.length === 0
      ? {}
      : { detail: `still ${active.map(({ run }) => `${run.runId} ${run.status}`).join(', ')}` }),
  });
  const missed = runs.filter(({ run }) => run.status === 'missed');
  checks.push({
    ok: missed.length === 0,
    what: 'no fire was missed',
    ...(missed.length === 0 ? {} : { detail: missed.map(({ run }) => run.runId).join(', ') }),
  });
  const runErrors = runs.filter(({ run }) => run.errorCode !== undefined);
  checks.push({
    ok: runErrors.length === 0,
    what: 'no run failed as a whole',
    ...(runErrors.length === 0
      ? {}
      : {
          detail: runErrors
            .map(({ run }) => `${run.runId}: ${run.errorCode}: ${run.errorMessage ?? ''}`)
            .join('; '),
        }),
  });
  const unexplained = runs.flatMap(({ run, items }) =>
    items.filter((item) => !explainedBySimulator(run.kind, item)).map((item) => ({ run, item })),
  );
  checks.push({
    ok: unexplained.length === 0,
    what: "every item that did not succeed is one of the simulator's injected faults",
    ...(unexplained.length === 0
      ? {}
      : {
          detail: unexplained
            .slice(0, 10)
            .map(
              ({ run, item }) =>
                `${run.runId} ${item.targetName ?? item.itemKey}: ${item.status}` +
                `${item.errorCode === undefined ? '' : ` ${item.errorCode}`}` +
                `${item.errorMessage === undefined ? '' : `: ${item.errorMessage}`}`,
            )
            .join('; '),
        }),
  });
  return checks;
}
