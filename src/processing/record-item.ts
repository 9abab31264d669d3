import type { ItemUpdate } from '../outcomes/outcome-records.js';
import type { OutcomeStore, RecordedItem } from '../outcomes/outcome-store.js';

/**
 * Records an item and, when it was the last of its run still queued or running, finishes the
 * run (its status derived from the items), in the same step: of several items ending at once
 * exactly one sees the others ended and finishes the run, and no crash can come between the
 * item's end and the run's. `runFinished` says the run's final status when this call ended it.
 */
export function recordItemAndMaybeFinish(
  outcomes: OutcomeStore,
  runId: string,
  itemKey: string,
  update: ItemUpdate,
): Promise<RecordedItem> {
  return outcomes.recordItem(runId, itemKey, update, { finishRunIfLast: true });
}
