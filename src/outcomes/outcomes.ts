import type { Redis } from 'ioredis';
import { CoverageIndex } from './coverage-index.js';
import { DeferredStarts } from './deferred-starts.js';
import { ItemStore } from './item-store.js';
import { OutcomeKeys } from './outcome-keys.js';
import type { OutcomeObserver } from './outcome-observer.js';
import { OutcomeQueries } from './outcome-queries.js';
import { RunStore } from './run-store.js';

/**
 * A process's way to the outcome records, over one connection: its runs and their items, written
 * and read one at a time, and its queries (lists and exports). A process makes one where it opens
 * that connection and passes it (or the part a component uses) down; nothing else builds a store
 * of its own, so every record a process writes is reported to the same observer, and every start
 * it defers is carried by its next write (src/outcomes/deferred-starts.ts).
 */
export class Outcomes {
  /**
   * The connection the records are written over: what writes in the same scripts as the records
   * (a snapshot run's lanes) writes over it too, in order with them.
   */
  readonly redis: Redis;
  readonly keys: OutcomeKeys;
  readonly runs: RunStore;
  readonly items: ItemStore;
  readonly queries: OutcomeQueries;
  /** Each definition's targets with their latest outcome (`paw coverage`). */
  readonly coverage: CoverageIndex;

  /**
   * @param observer told when a run ends and when an item reaches a final status (the metrics
   *   and notifications of a process that runs workers).
   * @param clock the time records are stamped with.
   */
  constructor(
    redis: Redis,
    prefix: string,
    observer?: OutcomeObserver,
    clock: () => Date = () => new Date(),
  ) {
    this.redis = redis;
    this.keys = new OutcomeKeys(prefix);
    const starts = new DeferredStarts();
    this.runs = new RunStore(redis, this.keys, starts, clock, observer);
    this.items = new ItemStore(redis, this.keys, starts, clock, observer);
    this.queries = new OutcomeQueries(redis, prefix);
    this.coverage = new CoverageIndex(redis, this.keys);
  }
}
