import { runFromFlatHash, type ItemRecord, type RunRecord } from './outcome-records.js';
import { isActiveStatus, type OutcomeStatus } from './outcome-status.js';

/**
 * What the outcome stores (RunStore, ItemStore) tell an observer as records change (metrics and
 * notifications in paw's processes). Methods are called after the change is stored, must return
 * quickly (start any I/O without awaiting it), and anything they throw is swallowed.
 */
export interface OutcomeObserver {
  /**
   * A run ended. Called once per run, by the process whose write ended it (repeats of a finish
   * are not reported). Runs recorded as skipped or missed never start, so they are not reported
   * here.
   */
  runFinished?(run: RunRecord): void;
  /** An item reached a final status, new or from `queued`/`running`. */
  itemFinished?(item: ItemRecord, previousStatus: OutcomeStatus | undefined): void;
}

/** Calls an observer, swallowing what it throws: observing must never fail a write. */
export function tellObserver(call: () => void): void {
  try {
    call();
  } catch {
    // The observer's own failure is not the run's.
  }
}

/**
 * What a finish answered (pawFinishRun in src/outcomes/lua/includes/finishRun.lua: the final
 * status, the status before, the run's fields): the final status, with the observer told when
 * this call ended the run (it was still queued or running before).
 */
export function reportFinish(
  observer: OutcomeObserver | undefined,
  status: string,
  before: string,
  flat: readonly string[],
): OutcomeStatus {
  if (observer?.runFinished !== undefined && isActiveStatus(before as OutcomeStatus)) {
    const finished = runFromFlatHash(flat);
    if (finished !== undefined) tellObserver(() => observer.runFinished?.(finished));
  }
  return status as OutcomeStatus;
}
