/**
 * Every Redis key of the outcome store, in one place. All start with `<prefix>:outcomes`, so a
 * `{paw}` prefix puts them in one Redis Cluster slot, as the scripts need.
 *
 * - `run:<runId>` hash: the run's fields and item counters (`count:<status>`, `count:total`)
 * - `runs` and `runs:def:<definitionId>` sorted sets: run ids by fire time (ms)
 * - `active:<definitionId>` sorted set: runs still queued or running (the overlap check)
 * - `items:<runId>` hash: item key → the item as compact JSON (storedPatch in outcome-records.ts):
 *   every item while the run is active and for a short while after it ends; then only those that
 *   did not succeed (what operators read), and
 * - `packed:<runId>` hash: the items that succeeded, packed (src/outcomes/run-packer.ts): chunk
 *   name (its first item key) → up to 128 items, compressed (packed-chunks.ts); with
 *   `packed-index:<runId>`, a sorted set of the chunk names (score 0, read by byte order) to find
 *   an item's chunk; the run hash's `packed` field says the run is packed (`packing` while a packer
 *   packs it, its items that stay meanwhile gathered in `packing:<runId>`)
 * - `unpacked` sorted set: finished runs whose items are still to be packed, by when they ended
 * - `items:<runId>:<status>` sets: item keys per final status but `succeeded`
 *   ({@link INDEXED_ITEM_STATUSES}): the items that did not succeed, which retry, notifications
 *   and the dashboard list. `succeeded` is the common case and `queued`/`running` change on every
 *   item's way through; they are found by scanning instead (indexing them would double the memory
 *   of a run and add four commands to every item)
 * - `target:<targetId>` sorted set: every item of a target by fire time, as `<runId>` when the
 *   item key is the target id (a workload's snapshot: the common case, kept short because there
 *   is one entry per item), else `<runId> <itemKey>`
 * - `target-names` hash: lowercased target name → target id (the latest seen)
 * - `coverage:<definitionId>` hash: target id → its latest final outcome in that definition's
 *   runs (src/outcomes/coverage-index.ts; written by pawRecordCoverage)
 * - `trim-lock`: held by the replica trimming expired records
 *
 * A job kind may keep keys of its own for a run under the same base (a snapshot run's lanes:
 * src/job-kinds/snapshot/lanes/lane-keys.ts); the retention trimmer is told them.
 */
/** The item statuses with a set of their own per run (see {@link OutcomeKeys}). */
export const INDEXED_ITEM_STATUSES = ['failed', 'skipped', 'timed-out', 'canceled'] as const;

export class OutcomeKeys {
  readonly base: string;

  constructor(prefix: string) {
    this.base = `${prefix}:outcomes`;
  }

  run(runId: string): string {
    return `${this.base}:run:${runId}`;
  }

  runs(): string {
    return `${this.base}:runs`;
  }

  runsOf(definitionId: string): string {
    return `${this.base}:runs:def:${definitionId}`;
  }

  active(definitionId: string): string {
    return `${this.base}:active:${definitionId}`;
  }

  items(runId: string): string {
    return `${this.base}:items:${runId}`;
  }

  itemsWithStatus(runId: string, status: string): string {
    return `${this.base}:items:${runId}:${status}`;
  }

  packed(runId: string): string {
    return `${this.base}:packed:${runId}`;
  }

  /** The items a pack leaves in the items hash, gathered while it packs (see run-packer.ts). */
  packing(runId: string): string {
    return `${this.base}:packing:${runId}`;
  }

  packedIndex(runId: string): string {
    return `${this.base}:packed-index:${runId}`;
  }

  unpacked(): string {
    return `${this.base}:unpacked`;
  }

  target(targetId: string): string {
    return `${this.base}:target:${targetId}`;
  }

  targetNames(): string {
    return `${this.base}:target-names`;
  }

  coverage(definitionId: string): string {
    return `${this.base}:coverage:${definitionId}`;
  }

  trimLock(): string {
    return `${this.base}:trim-lock`;
  }
}

/** Separates the run id from the item key in a `target:<id>` member (run ids hold no space). */
const TARGET_MEMBER_SEPARATOR = ' ';

/** The member of `target:<targetId>` for an item (see {@link OutcomeKeys}). */
export function targetMember(runId: string, itemKey: string, targetId: string): string {
  return itemKey === targetId ? runId : `${runId}${TARGET_MEMBER_SEPARATOR}${itemKey}`;
}

/** The run id and item key in a member of `target:<targetId>`. */
export function parseTargetMember(
  member: string,
  targetId: string,
): { runId: string; itemKey: string } {
  const split = member.indexOf(TARGET_MEMBER_SEPARATOR);
  return split < 0
    ? { runId: member, itemKey: targetId }
    : { runId: member.slice(0, split), itemKey: member.slice(split + 1) };
}
