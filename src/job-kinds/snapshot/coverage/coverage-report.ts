import type { JobDefinition } from '../../../definitions/job-definition.js';
import { CronSchedule } from '../../../definitions/schedule/cron-schedule.js';
import type { SnapshotDefinition } from '../../../definitions/snapshot-definition.js';
import type { CoverageIndex, LatestOutcome } from '../../../outcomes/coverage-index.js';
import type { PlatformClient } from '../../../platform/platform-client.js';
import type { Workload } from '../../../platform/records/workload.js';
import { parseDuration } from '../../../shared/duration.js';
import { resolveTargets, targetDecision, type ResolvedTargets } from '../targets.js';

/**
 * Where a workload a snapshot definition covers stands now:
 * - `protected`: its last item succeeded, at or after the definition's last due fire (or within
 *   `--stale`);
 * - `failing`: its last item did not succeed (failed, timed out, canceled; or the definition
 *   lists an id the platform does not know);
 * - `stale`: it succeeded once, but no run has reached it since (a paused or disabled schedule,
 *   skipped fires, the scheduler down);
 * - `skipped`: paw cannot snapshot it (a type the platform cannot snapshot on demand, a
 *   Disconnected cluster);
 * - `never`: covered now, but no run has reached it yet.
 */
export const COVERAGE_STATES = ['protected', 'failing', 'stale', 'skipped', 'never'] as const;
type CoverageState = (typeof COVERAGE_STATES)[number];

/** One workload of a definition. Times are ISO 8601; `null` where there is none. */
interface CoverageRow {
  readonly workloadId: string;
  readonly name: string;
  readonly state: CoverageState;
  readonly lastSuccessAt: string | null;
  /** Consecutive runs whose item for the workload did not succeed (0 after a success). */
  readonly failureStreak: number;
  readonly lastRunId: string | null;
  /** Why it is not protected (the last error, or why it is skipped); null when protected. */
  readonly reason: string | null;
  /** For `skipped`: since when its runs have skipped it. */
  readonly skippedSince: string | null;
}

/** A definition's workloads and their states. */
export interface DefinitionCoverage {
  readonly definitionId: string;
  readonly enabled: boolean;
  /**
   * A success older than this is stale: the definition's last fire whose run has had time to
   * finish (its jitter and maxWait past it), or `now - --stale`. Null when it has no such fire.
   */
  readonly protectedSince: string | null;
  readonly counts: Readonly<Record<CoverageState, number>>;
  readonly workloads: readonly CoverageRow[];
}

/** How {@link definitionCoverage} judges. */
export interface CoverageOptions {
  readonly now: Date;
  /** `--stale`: a success older than this is stale, whatever the schedule says. */
  readonly staleAfterMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
}

/**
 * The snapshot definitions among `definitions`: those coverage is about (the only kind that
 * protects workloads).
 */
export function snapshotDefinitions(
  definitions: readonly JobDefinition[],
): readonly SnapshotDefinition[] {
  return definitions.filter(
    (definition): definition is SnapshotDefinition => definition.kind === 'snapshot',
  );
}

/**
 * Each workload `definition` covers now (resolved as its run would, reading only) joined with
 * its latest outcome in the coverage index (src/outcomes/coverage-index.ts): one listing of the
 * platform and one read of the index, never a scan of runs.
 */
async function definitionCoverage(
  definition: SnapshotDefinition,
  platform: PlatformClient,
  index: CoverageIndex,
  options: CoverageOptions,
): Promise<DefinitionCoverage> {
  const [targets, latest] = await Promise.all([
    resolveTargets(definition.targets, platform, options.signal),
    index.read(definition.id),
  ]);
  const since =
    options.staleAfterMs === undefined
      ? lastDueFire(definition, options.now)
      : new Date(options.now.getTime() - options.staleAfterMs);
  const workloads: CoverageRow[] = [];
  for (const unknown of targets.unknownIds) {
    const outcome = latest.get(unknown.id);
    workloads.push({
      ...fromOutcome(unknown.id, '', outcome),
      state: 'failing',
      failureStreak: outcome?.failureStreak ?? 0,
      reason: unknown.message,
    });
  }
  for (const workload of targets.workloads) {
    workloads.push(
      workloadRow(workload, targets, latest.get(workload.id), since, platform.api.vocabulary),
    );
  }
  return {
    definitionId: definition.id,
    enabled: definition.enabled,
    protectedSince: since?.toISOString() ?? null,
    counts: countStates(workloads),
    workloads,
  };
}

function workloadRow(
  workload: Workload,
  targets: ResolvedTargets,
  outcome: LatestOutcome | undefined,
  since: Date | undefined,
  vocabulary: PlatformClient['api']['vocabulary'],
): CoverageRow {
  const row = fromOutcome(workload.id, workload.name, outcome);
  const decision = targetDecision(workload, targets, vocabulary);
  if (decision.action === 'skip' || outcome?.status === 'skipped') {
    const skippedBefore = outcome?.status === 'skipped';
    return {
      ...row,
      state: 'skipped',
      reason: decision.action === 'skip' ? decision.reason : (outcome?.reason ?? null),
      skippedSince:
        skippedBefore && outcome?.skippedSinceMs !== undefined
          ? new Date(outcome.skippedSinceMs).toISOString()
          : null,
    };
  }
  if (outcome === undefined) return { ...row, state: 'never' };
  if (outcome.status !== 'succeeded') return { ...row, state: 'failing' };
  return { ...row, state: freshness(outcome.lastSuccessMs, since), reason: null };
}

/**
 * A workload whose last outcome succeeded: protected when that success is no older than
 * `since` (always, when there is no `since`), else stale.
 */
function freshness(
  lastSuccessMs: number | undefined,
  since: Date | undefined,
): 'protected' | 'stale' {
  const fresh =
    since === undefined || (lastSuccessMs !== undefined && lastSuccessMs >= since.getTime());
  return fresh ? 'protected' : 'stale';
}

function fromOutcome(
  workloadId: string,
  name: string,
  outcome: LatestOutcome | undefined,
): Omit<CoverageRow, 'state'> {
  return {
    workloadId,
    name,
    lastSuccessAt:
      outcome?.lastSuccessMs === undefined ? null : new Date(outcome.lastSuccessMs).toISOString(),
    failureStreak: outcome?.failureStreak ?? 0,
    lastRunId: outcome?.lastRunId ?? null,
    reason: outcome?.reason ?? null,
    skippedSince: null,
  };
}

/** Windows searched, shortest first, for the last due fire: a per-second schedule stops at once. */
const LOOKBACK_MS = [3_600_000, 86_400_000, 32 * 86_400_000, 367 * 86_400_000];

/**
 * The definition's last fire whose run has had time to end (its jitter and `maxWait` past it):
 * a workload whose last success is older was not reached by it. Calendar skip days and pauses
 * do not move it back: a fire that did not run leaves its workloads stale, as it should.
 */
function lastDueFire(definition: SnapshotDefinition, now: Date): Date | undefined {
  const { schedule } = definition;
  const slackMs =
    (parseDuration(schedule.jitter ?? '0s') ?? 0) + (parseDuration(definition.maxWait) ?? 0);
  const until = new Date(now.getTime() - slackMs);
  const cron = CronSchedule.create(schedule.cron, schedule.timezone);
  for (const lookback of LOOKBACK_MS) {
    const fires = cron.firesBetween(new Date(until.getTime() - lookback), until);
    const last = fires.at(-1);
    if (last !== undefined) return last;
  }
  return undefined;
}

/**
 * The platform's workloads paw can snapshot on demand (VMs and SQL Server databases) that no
 * enabled snapshot definition covers now (each resolved as its run would).
 */
export async function uncoveredWorkloads(
  definitions: readonly SnapshotDefinition[],
  platform: PlatformClient,
  signal?: AbortSignal,
): Promise<Workload[]> {
  const covered = new Set<string>();
  for (const definition of definitions) {
    if (!definition.enabled) continue;
    const targets = await resolveTargets(definition.targets, platform, signal);
    for (const workload of targets.workloads) covered.add(workload.id);
  }
  const { vocabulary } = platform.api;
  const uncovered: Workload[] = [];
  for await (const workload of platform.api.workloads.list({}, signal)) {
    if (covered.has(workload.id)) continue;
    if (vocabulary.onDemandSnapshot(workload.kind) !== undefined) uncovered.push(workload);
  }
  return uncovered;
}

/** Every snapshot definition's coverage (or one's): what `paw coverage` and /api/coverage answer. */
export interface CoverageReport {
  readonly generatedAt: string;
  /** True when every workload of every definition is `protected`. */
  readonly allProtected: boolean;
  readonly definitions: readonly DefinitionCoverage[];
}

/**
 * `report` judged again as if computed with `staleAfterMs` (`--stale`) at its own time: only a
 * succeeded workload's state depends on it (protected or stale), so this needs neither the
 * platform nor the index. `/api/coverage?stale=` answers every value from one computed report.
 */
export function withStaleAfter(report: CoverageReport, staleAfterMs: number): CoverageReport {
  const since = new Date(Date.parse(report.generatedAt) - staleAfterMs);
  const definitions = report.definitions.map((definition) => {
    const workloads = definition.workloads.map((row) =>
      row.state === 'protected' || row.state === 'stale'
        ? {
            ...row,
            state: freshness(
              row.lastSuccessAt === null ? undefined : Date.parse(row.lastSuccessAt),
              since,
            ),
          }
        : row,
    );
    return {
      ...definition,
      protectedSince: since.toISOString(),
      counts: countStates(workloads),
      workloads,
    };
  });
  return { ...report, allProtected: allProtected(definitions), definitions };
}

function countStates(workloads: readonly CoverageRow[]): Record<CoverageState, number> {
  const counts = Object.fromEntries(COVERAGE_STATES.map((state) => [state, 0])) as Record<
    CoverageState,
    number
  >;
  for (const row of workloads) counts[row.state] += 1;
  return counts;
}

function allProtected(definitions: readonly DefinitionCoverage[]): boolean {
  return definitions.every((report) => report.workloads.every((row) => row.state === 'protected'));
}

/** The one computation behind `paw coverage` and `/api/coverage`. */
export async function coverageReport(
  definitions: readonly SnapshotDefinition[],
  platform: PlatformClient,
  index: CoverageIndex,
  options: CoverageOptions,
): Promise<CoverageReport> {
  const reports: DefinitionCoverage[] = [];
  for (const definition of definitions) {
    reports.push(await definitionCoverage(definition, platform, index, options));
  }
  return {
    generatedAt: options.now.toISOString(),
    allProtected: allProtected(reports),
    definitions: reports,
  };
}
