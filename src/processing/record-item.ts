import type { ItemUpdate } from '../outcomes/outcome-records.js';
import type { OutcomeStore, RecordedItem } from '../outcomes/outcome-store.js';
import type { OutcomeStatus } from '../outcomes/outcome-status.js';

/** What {@link recordItemAndMaybeFinish} did. */
export interface RecordedItemResult extends RecordedItem {
  /** The run's final status when this item was the last to end (the run is finished now). */
  readonly runFinished: OutcomeStatus | undefined;
}

/**
 * Records an item and, when it was the last of its run still queued or running, finishes the
 * run (its status derived from the items). The counts come back from the same atomic script
 * as the update, so of several items ending at once exactly one sees zero and finishes; if a
 * crash comes between the two calls, whoever records or re-checks the run next finishes it
 * (finishing twice is harmless).
 */
export async function recordItemAndMaybeFinish(
  outcomes: OutcomeStore,
  runId: string,
  itemKey: string,
  update: ItemUpdate,
): Promise<RecordedItemResult> {
  const recorded = await outcomes.recordItem(runId, itemKey, update);
  const { queued, running } = recorded.runCounts;
  const runFinished = queued === 0 && running === 0 ? await outcomes.finishRun(runId) : undefined;
  return {
    // A getter, not a spread: the item is parsed only if the caller reads it.
    get item() {
      return recorded.item;
    },
    previousStatus: recorded.previousStatus,
    runCounts: recorded.runCounts,
    runFinished,
  };
}
