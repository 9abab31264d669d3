import type { OutcomeKeys } from '../../../outcomes/outcome-keys.js';

/**
 * The Redis keys of a snapshot run's lanes, beside the run's outcome records (under the same
 * `<prefix>:outcomes` base, so a `{paw}` prefix keeps them in the records' Redis Cluster slot, as
 * the lanes' scripts need):
 *
 * - `lane-queue:<runId>` sorted set: the run's items that no lane has taken yet
 * - `lane:<runId>:<n>` sorted sets: the items lane `n` has taken, each scored by when it is next
 *   due; an item leaves its lane when it ends. The run's `lanes` field says how many there are.
 * - `lane-fences:<runId>` hash: each item in a lane's hands with the fence of the step that holds
 *   it, and under the field '' the last fence drawn (lua/writeLane-16.lua says how they are used).
 *
 * They are trimmed with the run (keysOfRun, which the retention trimmer is given).
 */
export class LaneKeys {
  constructor(private readonly outcomes: OutcomeKeys) {}

  laneQueue(runId: string): string {
    return `${this.outcomes.base}:lane-queue:${runId}`;
  }

  lane(runId: string, lane: number): string {
    return `${this.lanesOf(runId)}${lane}`;
  }

  /** The fences of the steps that hold the run's items (see writeLane-16.lua). */
  fences(runId: string): string {
    return `${this.outcomes.base}:lane-fences:${runId}`;
  }

  /** Every lane's key of the run but its number (lane `n` is this and `n`). */
  lanesOf(runId: string): string {
    return `${this.outcomes.base}:lane:${runId}:`;
  }

  /**
   * The lane keys of a run with these fields (its hash), to delete with it: a run trimmed before
   * its items ended (abandoned mid-way) still has lanes.
   */
  keysOfRun(runId: string, run: Readonly<Record<string, string>>): string[] {
    const lanes = Number(run['lanes'] ?? 0);
    return [
      this.laneQueue(runId),
      this.fences(runId),
      ...Array.from({ length: lanes }, (_, lane) => this.lane(runId, lane)),
    ];
  }
}
