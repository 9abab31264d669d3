import type { ItemRecord, RunRecord } from './outcome-records.js';
import type { OutcomeStatus } from './outcome-status.js';

/**
 * What an {@link OutcomeStore} tells an observer as records change (metrics and notifications in
 * paw's processes). Methods are called after the change is stored, must return quickly (start
 * any I/O without awaiting it), and anything they throw is swallowed.
 */
export interface OutcomeObserver {
  /**
   * A run ended. Called once per run, by the process whose `finishRun` ended it (repeats of
   * `finishRun` are not reported). Runs recorded as skipped or missed never start, so they are
   * not reported here.
   */
  runFinished?(run: RunRecord): void;
  /** An item reached a final status, new or from `queued`/`running`. */
  itemFinished?(item: ItemRecord, previousStatus: OutcomeStatus | undefined): void;
}
