import type { Redis } from 'ioredis';
import type { OutcomeKeys } from './outcome-keys.js';
import { isOutcomeStatus, type ItemStatus } from './outcome-status.js';

/** A target's latest final outcome in one definition's runs. Times are epoch ms. */
export interface LatestOutcome {
  readonly status: ItemStatus;
  readonly lastRunId: string;
  /** The fire time of {@link lastRunId}. */
  readonly lastFireMs: number;
  /** Consecutive runs whose item for the target did not succeed (0 after a success). */
  readonly failureStreak: number;
  readonly lastSuccessMs: number | undefined;
  /** Why the last item did not succeed (its error message, or its reason). */
  readonly reason: string | undefined;
  /** When the target was first skipped in the current stretch of skips. */
  readonly skippedSinceMs: number | undefined;
}

/** Fields deleted per HDEL by {@link CoverageIndex.keepOnly}. */
const DELETE_BATCH = 1000;

/**
 * Each definition's targets with their latest final outcome: one hash per definition (key
 * layout: outcome-keys.ts), written in the same step as the item by pawRecordCoverage
 * (src/outcomes/lua/includes/recordCoverage.lua), so `paw coverage` reads one hash instead of
 * scanning months of runs.
 */
export class CoverageIndex {
  constructor(
    private readonly redis: Redis,
    private readonly keys: OutcomeKeys,
  ) {}

  /** Every target the definition's runs reached, with its latest outcome. */
  async read(definitionId: string): Promise<Map<string, LatestOutcome>> {
    const hash = await this.redis.hgetall(this.keys.coverage(definitionId));
    const outcomes = new Map<string, LatestOutcome>();
    for (const [targetId, json] of Object.entries(hash)) {
      const outcome = latestFromStored(json);
      if (outcome !== undefined) outcomes.set(targetId, outcome);
    }
    return outcomes;
  }

  /**
   * Forgets the targets the definition no longer covers (its run resolved `covered` just now):
   * a workload removed from a definition, or from the platform, leaves no row behind.
   */
  async keepOnly(definitionId: string, covered: readonly string[]): Promise<number> {
    const key = this.keys.coverage(definitionId);
    const keep = new Set(covered);
    const gone = (await this.redis.hkeys(key)).filter((targetId) => !keep.has(targetId));
    for (let first = 0; first < gone.length; first += DELETE_BATCH) {
      await this.redis.hdel(key, ...gone.slice(first, first + DELETE_BATCH));
    }
    return gone.length;
  }
}

function latestFromStored(json: string): LatestOutcome | undefined {
  let stored: Record<string, unknown>;
  try {
    stored = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const status = stored['s'];
  if (!isOutcomeStatus(status) || status === 'missed') return undefined;
  const ms = (value: unknown): number | undefined =>
    typeof value === 'number' && Number.isFinite(value) ? value : undefined;
  const reason = stored['w'];
  const runId = stored['r'];
  return {
    status,
    lastRunId: typeof runId === 'string' ? runId : '',
    lastFireMs: ms(stored['f']) ?? 0,
    failureStreak: ms(stored['n']) ?? 0,
    lastSuccessMs: ms(stored['ok']),
    reason: typeof reason === 'string' && reason !== '' ? reason : undefined,
    skippedSinceMs: ms(stored['ss']),
  };
}
