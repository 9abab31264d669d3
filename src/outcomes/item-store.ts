import type { Redis } from 'ioredis';
import { luaScript } from '../redis/lua-file.js';
import type { DeferredStarts } from './deferred-starts.js';
import { INDEXED_ITEM_STATUSES, type OutcomeKeys } from './outcome-keys.js';
import { reportFinish, tellObserver, type OutcomeObserver } from './outcome-observer.js';
import {
  itemFromStored,
  storedPatch,
  type ItemCounts,
  type ItemRecord,
  type ItemUpdate,
} from './outcome-records.js';
import { isActiveStatus, type ItemStatus, type OutcomeStatus } from './outcome-status.js';
import { RunPacker } from './run-packer.js';
import { StoredItems } from './stored-items.js';
import { withKnownRun } from './unknown-run-error.js';

/**
 * Lua that exists only as a string and that every script recording items is given
 * (src/outcomes/lua/includes/indexedItemStatuses.lua): the statuses with a set of their own,
 * whose one home is {@link INDEXED_ITEM_STATUSES}.
 */
export const ITEM_SCRIPT_FRAGMENTS: Readonly<Record<string, string>> = {
  indexedItemStatuses: `local pawIndexedItemStatuses = {${INDEXED_ITEM_STATUSES.map(
    (status) => `['${status}'] = true`,
  ).join(', ')}}`,
};

const recordItemScript = luaScript('outcomes/lua/recordItem-2.lua', ITEM_SCRIPT_FRAGMENTS);
const createItemsScript = luaScript('outcomes/lua/createItems-2.lua', ITEM_SCRIPT_FRAGMENTS);

/** The first element of pawRecordItem's reply when the item's status was not the one required. */
const NOT_RECORDED = 'PAW_NOT_RECORDED';

/** Items created per script call by {@link ItemStore.create}. */
const CREATE_BATCH = 500;

/**
 * Tries of a write that finds its run packed (`PAW_RUN_PACKED`): each unpacks it first. An
 * unpacked run is queued to be packed again, so a second refusal is a pack that began between
 * the unpack and the write.
 */
const PACKED_WRITE_ATTEMPTS = 3;

/** How an item is recorded, beside its update. */
export interface RecordOptions {
  /** Records only if the item's status is this one now (a compare-and-set: of two workers, one wins). */
  readonly onlyIfStatus?: ItemStatus;
  /** The update's details are merged into the item's (fields it does not name keep their value). */
  readonly mergeDetails?: boolean;
  /** This update finishes the run when it ends the run's last item still queued or running. */
  readonly finishRunIfLast?: boolean;
}

/** What {@link ItemStore.record} stored. */
export interface RecordedItem {
  readonly recorded: true;
  readonly item: ItemRecord;
  /** The item's status before this update; `undefined` for a new item. */
  readonly previousStatus: OutcomeStatus | undefined;
  /** The run's item counts right after this update. */
  readonly runCounts: ItemCounts;
  /**
   * With `finishRunIfLast`: the run's final status when this update ended its last item still
   * queued or running, and so finished the run in the same step; undefined otherwise.
   */
  readonly runFinished?: OutcomeStatus;
}

/** An update whose `onlyIfStatus` did not hold: nothing was recorded. */
export interface NotRecordedItem {
  readonly recorded: false;
  /** The item as it is (undefined when there is none). */
  readonly item: ItemRecord | undefined;
}

/**
 * The durable record of every item of every run, in Redis (key layout: outcome-keys.ts): a
 * workload's snapshot, an SLA Domain's pause or resume, a rotation. An item is recorded one way,
 * pawRecordItem (src/outcomes/lua/includes/recordItem.lua), which keeps the run's counters and the
 * indexes in step: {@link record} runs it for one item, and a script of another step runs it for
 * many through an {@link ItemBatch} (a snapshot lane's write). Every write is safe to repeat: a
 * retried job records the same item again and the counters stay right.
 */
export class ItemStore {
  private readonly stored: StoredItems;
  private readonly packer: RunPacker;

  /**
   * @param starts the starts this process deferred to its next write: a write for a run carries
   *   its start (see src/outcomes/deferred-starts.ts).
   * @param observer told when an item reaches a final status, and when a write ends its run;
   *   never fails a call.
   */
  constructor(
    private readonly redis: Redis,
    private readonly keys: OutcomeKeys,
    private readonly starts: DeferredStarts,
    private readonly clock: () => Date,
    private readonly observer?: OutcomeObserver,
  ) {
    this.stored = new StoredItems(redis, keys);
    this.packer = new RunPacker(redis, keys, clock);
  }

  /**
   * Runs `call`, a script that writes items of `runId`: when it finds the run's items packed
   * (src/outcomes/run-packer.ts), unpacks them and calls it again. Throws UnknownRunError for a
   * run that does not exist.
   */
  async writing<T>(runId: string, call: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await withKnownRun(runId, call);
      } catch (error) {
        const packed = error instanceof Error && error.message.includes('PAW_RUN_PACKED');
        if (!packed || attempt >= PACKED_WRITE_ATTEMPTS) throw error;
        await this.packer.unpack(runId);
      }
    }
  }

  /**
   * Records an item of a run, or updates it (same `itemKey`): fields absent from `update` keep
   * their value, `null` clears one. Returns the item as stored, its previous status, and the
   * run's item counts right after this update (read atomically with it: when `queued` and
   * `running` are both 0, this was the last item to end). With `onlyIfStatus`, nothing may be
   * recorded: then the item as it is comes back instead, in the same round trip. Throws
   * UnknownRunError.
   */
  record(
    runId: string,
    itemKey: string,
    update: ItemUpdate,
    options?: RecordOptions & { readonly onlyIfStatus?: undefined },
  ): Promise<RecordedItem>;
  record(
    runId: string,
    itemKey: string,
    update: ItemUpdate,
    options: RecordOptions,
  ): Promise<RecordedItem | NotRecordedItem>;
  async record(
    runId: string,
    itemKey: string,
    update: ItemUpdate,
    options: RecordOptions = {},
  ): Promise<RecordedItem | NotRecordedItem> {
    const batch = this.batch(runId);
    const args = [...batch.args, ...batch.argsOf({ itemKey, update, ...options })];
    const reply = (await this.writing(runId, () =>
      recordItemScript.run(this.redis, batch.keys, args),
    )) as string[];
    return batch.resultOf(itemKey, update.status, reply);
  }

  /**
   * Items of `runId` recorded in a script of another step, each as {@link record} would record
   * it: see {@link ItemBatch}.
   */
  batch(runId: string): ItemBatch {
    return new ItemBatch(this.keys, runId, this.clock().getTime(), this.starts, this.observer);
  }

  /**
   * Creates the items that do not exist yet, in batches (a run's fan-out): an item already
   * recorded is left as it is, so repeating this after a crash never moves an item back.
   * With `fanningOut`, the run is marked as fanning out (more items to come, page by page) in
   * the same script as the first batch: no item that ends finishes the run until
   * RunStore.endFanOut. Returns how many were created. Throws UnknownRunError.
   */
  async create(
    runId: string,
    items: readonly (readonly [itemKey: string, update: ItemUpdate])[],
    options: { readonly fanningOut?: boolean } = {},
  ): Promise<number> {
    let created = 0;
    const now = this.clock().getTime();
    for (let first = 0; first < items.length; first += CREATE_BATCH) {
      const start = this.starts.of(runId);
      const fanningOut = options.fanningOut === true && first === 0 ? '1' : '';
      const args: (string | number)[] = [this.keys.base, runId, now, start, fanningOut];
      for (const [itemKey, update] of items.slice(first, first + CREATE_BATCH)) {
        if (itemKey === '') throw new TypeError('an item key must not be empty');
        args.push(itemKey, JSON.stringify({ ...storedPatch(update, itemKey), ua: now }));
      }
      created += Number(
        await this.writing(runId, () =>
          createItemsScript.run(this.redis, [this.keys.run(runId), this.keys.items(runId)], args),
        ),
      );
      this.starts.recorded(runId, start);
    }
    return created;
  }

  /** One item of a run, or `undefined`. */
  async get(runId: string, itemKey: string): Promise<ItemRecord | undefined> {
    const json = (await this.stored.get(runId, [itemKey])).get(itemKey);
    return json === undefined ? undefined : itemFromStored(runId, itemKey, json);
  }
}

/**
 * Items of one run recorded by pawRecordItem (src/outcomes/lua/includes/recordItem.lua, which
 * a script includes) in a script of another step, one call
 * per item: the script takes {@link keys} (the run's and its items') and {@link args} (base, run
 * id, now, the deferred start), then {@link argsOf} each item (its key, the update as stored
 * JSON, the status it must have, merge, finish if last), and calls
 * `pawRecordItem(runKey, itemsKey, base, runId, args of the item..., start)` with them (the
 * start only for the first item it records). Each item's reply goes back through
 * {@link resultOf}, which tells the observer as {@link ItemStore.record} would.
 */
export class ItemBatch {
  readonly keys: readonly [run: string, items: string];
  readonly args: readonly (string | number)[];
  private readonly start: number | '';

  constructor(
    keys: OutcomeKeys,
    private readonly runId: string,
    now: number,
    private readonly starts: DeferredStarts,
    private readonly observer: OutcomeObserver | undefined,
  ) {
    this.start = starts.of(runId);
    this.keys = [keys.run(runId), keys.items(runId)];
    this.args = [keys.base, runId, now, this.start];
  }

  /**
   * An item's five arguments to pawRecordItem (after base, run id and now). Without an update,
   * its update is '': a script records nothing for it.
   */
  argsOf(
    recording: RecordOptions & { readonly itemKey: string; readonly update?: ItemUpdate },
  ): (string | number)[] {
    if (recording.itemKey === '') throw new TypeError('an item key must not be empty');
    return [
      recording.itemKey,
      recording.update === undefined
        ? ''
        : JSON.stringify(storedPatch(recording.update, recording.itemKey)),
      recording.onlyIfStatus ?? '',
      recording.mergeDetails === true ? '1' : '0',
      recording.finishRunIfLast === true ? '1' : '0',
    ];
  }

  /**
   * What pawRecordItem's `reply` for the item `itemKey`, updated to `status`, says (and the
   * observer told).
   */
  resultOf(
    itemKey: string,
    status: ItemStatus,
    reply: readonly string[],
  ): RecordedItem | NotRecordedItem {
    const { runId } = this;
    if (reply[0] === NOT_RECORDED) {
      const json = reply[1] ?? '';
      return {
        recorded: false,
        item: json === '' ? undefined : itemFromStored(runId, itemKey, json),
      };
    }
    this.starts.recorded(runId, this.start);
    const [previous = '', json = '{}', ...rest] = reply;
    const [total, queued, running, succeeded, failed, skipped, timedOut, canceled] = rest
      .slice(0, 8)
      .map(Number);
    const [finishedStatus, finishedFrom, ...finishedRun] = rest.slice(8);
    const runFinished =
      finishedStatus === undefined || finishedStatus === ''
        ? undefined
        : reportFinish(this.observer, finishedStatus, finishedFrom ?? '', finishedRun);
    // Parsed only when someone reads it: most updates of a snapshot night are written, not read.
    let item: ItemRecord | undefined;
    const itemOf = (): ItemRecord => (item ??= itemFromStored(runId, itemKey, json));
    const previousStatus = previous === '' ? undefined : (previous as OutcomeStatus);
    const observer = this.observer;
    if (
      observer?.itemFinished !== undefined &&
      !isActiveStatus(status) &&
      (previousStatus === undefined || isActiveStatus(previousStatus))
    ) {
      tellObserver(() => observer.itemFinished?.(itemOf(), previousStatus));
    }
    return {
      recorded: true,
      get item() {
        return itemOf();
      },
      previousStatus,
      runCounts: {
        total: total ?? 0,
        queued: queued ?? 0,
        running: running ?? 0,
        succeeded: succeeded ?? 0,
        failed: failed ?? 0,
        skipped: skipped ?? 0,
        timedOut: timedOut ?? 0,
        canceled: canceled ?? 0,
      },
      ...(runFinished === undefined ? {} : { runFinished }),
    };
  }
}
