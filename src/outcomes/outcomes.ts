import type { Redis } from 'ioredis';
import type { OutcomeObserver } from './outcome-observer.js';
import { OutcomeQueries } from './outcome-queries.js';
import { OutcomeStore } from './outcome-store.js';

/**
 * A process's way to the outcome records: the store (runs and items, written and read one at a
 * time) and its queries (lists and exports), over one connection. A process makes one where it
 * opens that connection and passes it down; nothing else builds a store or queries of its own,
 * so every record a process writes is reported to the same observer.
 */
export class Outcomes {
  readonly store: OutcomeStore;
  readonly queries: OutcomeQueries;

  /**
   * @param observer told when a run ends and when an item reaches a final status (the metrics
   *   and notifications of a process that runs workers); see OutcomeStore.
   */
  constructor(redis: Redis, prefix: string, observer?: OutcomeObserver) {
    this.store = new OutcomeStore(redis, prefix, undefined, observer);
    this.queries = new OutcomeQueries(redis, prefix);
  }
}
