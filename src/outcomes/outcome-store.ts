import type { Redis } from 'ioredis';
import type { JobKind } from '../definitions/job-definition.js';
import { OutcomeKeys } from './outcome-keys.js';
import type { OutcomeObserver } from './outcome-observer.js';
import {
  MAX_ERROR_MESSAGE_LENGTH,
  itemFromStored,
  runFromHash,
  storedPatch,
  type ItemCounts,
  type ItemRecord,
  type ItemUpdate,
  type RunRecord,
} from './outcome-records.js';
import {
  createItemsScript,
  createRunScript,
  dueItemsScript,
  enqueueForLanesScript,
  finishRunScript,
  laneCountScript,
  NOT_RECORDED,
  recordItemFunction,
  recordItemScript,
  startRunScript,
} from './outcome-scripts.js';
import { RedisScript } from '../redis/redis-script.js';
import {
  isActiveStatus,
  type ItemStatus,
  type OutcomeStatus,
  type RunTrigger,
} from './outcome-status.js';

/** A run as the scheduler creates it at a fire. */
export interface NewRun {
  readonly runId: string;
  readonly definitionId: string;
  readonly kind: JobKind;
  readonly fireTime: Date;
  readonly trigger: RunTrigger;
  /** `queued` for a run that was enqueued; `skipped` or `missed` for one that was not. */
  readonly status: Extract<OutcomeStatus, 'queued' | 'skipped' | 'missed'>;
  /** Why it was skipped or missed. */
  readonly reason?: string;
  /**
   * A queued run no worker has started by `at` is recorded as missed when one finally takes it
   * (`deadline`, the definition's `startDeadline`, goes into the reason).
   */
  readonly startBy?: { readonly at: Date; readonly deadline: string };
  /**
   * Whether the run's end is to be notified (its definition has `notify`): the worker that ends
   * it queues a notification only then. The URL itself never goes into the record.
   */
  readonly notify?: boolean;
}

/** What {@link OutcomeStore.startRun} found. */
export interface StartedRun {
  /** True when the run was queued or running and is now running: go ahead. */
  readonly started: boolean;
  /** The run's status before the call (a finished run must not be run again). */
  readonly previousStatus: OutcomeStatus;
  readonly run: RunRecord;
}

/** How a run ended, when the processor knows better than the item counts. */
export interface RunFinish {
  /** Derived from the items when absent: failed if any failed or timed out, else canceled if any was, else succeeded. */
  readonly status?: Extract<OutcomeStatus, 'succeeded' | 'failed' | 'timed-out' | 'canceled'>;
  readonly errorCode?: string;
  readonly errorMessage?: string;
}

/** What {@link OutcomeStore.recordItem} stored. */
export interface RecordedItem {
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

/**
 * Another component's atomic step, run in the same Lua script as a batch of item records
 * ({@link OutcomeStore.recordItems}): a BullMQ job's ownership checked before the records and
 * its move to the delayed set after them, say. The records and the step land together, in one
 * round trip, or not at all.
 */
export interface AtomicStep {
  /** Names the composed script; one script is kept per name, so a name always means one Lua. */
  readonly name: string;
  /**
   * The body of a Lua function run before the records, reading its own `KEYS[1..keys.length]`
   * and `ARGV[1..args.length]`: a negative number refuses the step, and then nothing is
   * recorded.
   */
  readonly check: string;
  /**
   * The body of a Lua function run after the records (same KEYS and ARGV, and the keys of the
   * lane and of the run's lane queue as `laneKey` and `queueKey`); its number is what
   * {@link OutcomeStore.recordItems} returns as `stepResult`. Absent: 0.
   */
  readonly then?: string;
  readonly keys: readonly string[];
  readonly args: readonly (string | number)[];
  /** The error {@link OutcomeStore.recordItems} throws for a refusal code. */
  readonly refused: (code: number) => Error;
}

/**
 * One item's part of {@link OutcomeStore.recordItems}: its record (compare-and-set with
 * `onlyIfStatus`) and its place in the lane, which moves only when the record was made.
 */
export interface ItemWrite {
  readonly itemKey: string;
  /** Nothing is recorded when absent (only the lane changes). */
  readonly update?: ItemUpdate;
  readonly onlyIfStatus?: ItemStatus;
  /** The update's details are merged into the item's instead of replacing them. */
  readonly mergeDetails?: boolean;
  /** This update finishes the run when it ends the run's last item still queued or running. */
  readonly finishRunIfLast?: boolean;
  /** When the item is next due in its lane (epoch ms); `null` takes it out; absent: unchanged. */
  readonly dueAt?: number | null;
}

/** A write of {@link OutcomeStore.recordItems} whose `onlyIfStatus` did not hold. */
interface NotRecorded {
  readonly recorded: false;
  /** The item as it is (undefined when there is none). */
  readonly item: ItemRecord | undefined;
}

/** What {@link OutcomeStore.recordItems} did, one entry per write (undefined: nothing to record). */
export interface RecordedItems {
  readonly results: readonly (
    (RecordedItem & { readonly recorded: true }) | NotRecorded | undefined
  )[];
  /** What the step's `then` returned. */
  readonly stepResult: number;
}

/** What {@link OutcomeStore.dueItems} found in a lane. */
export interface DueItems {
  readonly runStatus: OutcomeStatus;
  /** Items in the lane, due or not (those just taken from the queue included). */
  readonly laneSize: number;
  /** When the lane's earliest item not returned is due (epoch ms); undefined when none is. */
  readonly nextDueAt: number | undefined;
  /** Items still in the run's lane queue, for any lane to take. */
  readonly queued: number;
  /** The due items, earliest first, with their records (undefined: no record). */
  readonly items: readonly {
    readonly itemKey: string;
    readonly dueAt: number;
    readonly item: ItemRecord | undefined;
  }[];
}

/** No run has this id (it was never created, or has been trimmed). */
export class UnknownRunError extends Error {
  override readonly name = 'UnknownRunError';
  constructor(readonly runId: string) {
    super(`no outcome record for run ${runId}`);
  }
}

/**
 * The durable record of every run and of every item in it, in Redis. The scheduler creates runs
 * (queued, skipped or missed); processors start them, record their items and finish them. Every
 * step is a single atomic script and safe to repeat: a retried job records the same item again
 * and the counters stay right.
 *
 * Lifecycle for a processor:
 * 1. `startRun(runId, { recordWithNextWrite: true })`; if `started` is false the run is already
 *    finished (or was skipped): do nothing. The start is recorded by the next write.
 * 2. `recordItem(runId, itemKey, { status, target, ... })` as each item progresses (record the
 *    intent as `queued`/`running` before a side effect, the result right after), or
 *    `createItems` for many at once.
 * 3. `finishRun(runId)` once every item is final (its status is derived from the items), or
 *    `recordItem(..., { finishRunIfLast: true })`: the item that ends last finishes the run in
 *    the same step (finishing twice is harmless).
 */
export class OutcomeStore {
  readonly keys: OutcomeKeys;
  /**
   * Runs this process started with `recordWithNextWrite`, and when: the next write of each
   * (an item, the fan-out, the finish) records the start with it.
   */
  private readonly pendingStarts = new Map<string, number>();

  /**
   * @param observer told when a run ends and when an item reaches a final status (metrics and
   *   notifications); never fails a call.
   */
  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly clock: () => Date = () => new Date(),
    private readonly observer?: OutcomeObserver,
  ) {
    this.keys = new OutcomeKeys(prefix);
  }

  /**
   * Creates a run unless one with this id exists. Returns whether it was created and the status
   * of the run that exists now: the scheduler enqueues a job only for a run it created (or one
   * still `queued`, after a crash between the two).
   */
  async createRun(run: NewRun): Promise<{ created: boolean; status: OutcomeStatus }> {
    const { keys, args } = this.runCreation(run);
    return runCreated(await createRunScript.run(this.redis, keys, args));
  }

  /**
   * The KEYS and ARGV of the run-creating script for `run` (see createRunFunction in
   * outcome-scripts.ts), for a script that creates the run and does something else in the same
   * step (adds its BullMQ job: src/queue/run-enqueue-script.ts). Read its reply with
   * {@link runCreated}.
   */
  runCreation(run: NewRun): { keys: string[]; args: (string | number)[] } {
    const fireMs = run.fireTime.getTime();
    const now = this.clock().getTime();
    const fields: (string | number)[] = [
      'runId',
      run.runId,
      'definitionId',
      run.definitionId,
      'kind',
      run.kind,
      'fireMs',
      fireMs,
      'trigger',
      run.trigger,
      'status',
      run.status,
      'createdAt',
      now,
      'attempts',
      0,
      'notify',
      run.notify === true ? '1' : '0',
    ];
    if (run.reason !== undefined)
      fields.push('reason', run.reason.slice(0, MAX_ERROR_MESSAGE_LENGTH));
    if (run.startBy !== undefined) {
      fields.push('startBy', run.startBy.at.getTime(), 'startDeadline', run.startBy.deadline);
    }
    if (!isActiveStatus(run.status)) fields.push('finishedAt', now);
    return {
      keys: [
        this.keys.run(run.runId),
        this.keys.runs(),
        this.keys.runsOf(run.definitionId),
        this.keys.active(run.definitionId),
      ],
      args: [run.runId, fireMs, isActiveStatus(run.status) ? '1' : '0', run.status, ...fields],
    };
  }

  /** The run with this id, or `undefined`. */
  async getRun(runId: string): Promise<RunRecord | undefined> {
    return runFromHash(await this.redis.hgetall(this.keys.run(runId)));
  }

  /**
   * The oldest run of `definitionId` fired before `before` that is still queued or running, if
   * any: what the overlap policy `skip` asks about.
   */
  async activeRunBefore(definitionId: string, before: Date): Promise<RunRecord | undefined> {
    const key = this.keys.active(definitionId);
    const runIds = await this.redis.zrangebyscore(key, '-inf', `(${before.getTime()}`);
    for (const runId of runIds) {
      const run = await this.getRun(runId);
      if (run !== undefined && isActiveStatus(run.status)) return run;
      // The run finished or was trimmed without leaving the index: tidy up.
      await this.redis.zrem(key, runId);
    }
    return undefined;
  }

  /**
   * A worker took the run: see {@link StartedRun}. A run still queued past its start deadline is
   * recorded as missed instead (not started). Throws {@link UnknownRunError}.
   *
   * With `recordWithNextWrite` (what processors use), the start is only read and checked here:
   * the run is marked running, with its start time and one more attempt, by this process's next
   * write for it (an item, the fan-out or the finish), in the same script. A run's start then
   * costs no write of its own, and a start that crashed before doing anything leaves no trace.
   */
  async startRun(
    runId: string,
    options: { readonly recordWithNextWrite?: boolean } = {},
  ): Promise<StartedRun> {
    const now = this.clock().getTime();
    if (options.recordWithNextWrite === true) {
      const hash = await this.redis.hgetall(this.keys.run(runId));
      const run = runFromHash(hash);
      if (run === undefined) throw new UnknownRunError(runId);
      const startBy = Number(hash['startBy'] ?? NaN);
      // Past its start deadline: recorded missed now, by the script that decides it.
      if (!(run.status === 'queued' && now > startBy)) {
        const started = isActiveStatus(run.status);
        if (started) this.pendingStarts.set(runId, now);
        return { started, previousStatus: run.status, run };
      }
    }
    const reply = (await startRunScript.run(
      this.redis,
      [this.keys.run(runId)],
      [now, runId, this.keys.base],
    )) as string[];
    const [previous, missedNow, ...flat] = reply;
    if (previous === undefined || previous === '') throw new UnknownRunError(runId);
    const run = runFromHash(hashOf(flat));
    if (run === undefined) throw new UnknownRunError(runId);
    if (missedNow === '1') {
      // It ends here, past its start deadline: tell the observer as any other end of a run.
      const observer = this.observer;
      if (observer?.runFinished !== undefined) observe(() => observer.runFinished?.(run));
      return { started: false, previousStatus: run.status, run };
    }
    const previousStatus = previous as OutcomeStatus;
    return { started: isActiveStatus(previousStatus), previousStatus, run };
  }

  /** The time of a start of `runId` waiting for its next write ('' for none). */
  private pendingStart(runId: string): number | '' {
    return this.pendingStarts.get(runId) ?? '';
  }

  /** The write carrying `start` landed: the start is on record. */
  private startRecorded(runId: string, start: number | ''): void {
    if (start !== '' && this.pendingStarts.get(runId) === start) this.pendingStarts.delete(runId);
  }

  /**
   * Records an item of a run, or updates it (same `itemKey`): fields absent from `update` keep
   * their value, `null` clears one. Returns the item as stored, its previous status, and the
   * run's item counts right after this update (read atomically with it: when `queued` and
   * `running` are both 0, this was the last item to end, and the run can be finished).
   * Throws {@link UnknownRunError}.
   */
  async recordItem(
    runId: string,
    itemKey: string,
    update: ItemUpdate,
    options: { readonly finishRunIfLast?: boolean } = {},
  ): Promise<RecordedItem> {
    const reply = await this.runRecordScript(runId, itemKey, update, {
      ...options,
      onlyIfStatus: '',
      mergeDetails: false,
    });
    return this.recorded(runId, itemKey, update.status, reply);
  }

  /**
   * Records `update` only if the item's status is `onlyIfStatus` now (a compare-and-set: of two
   * workers, one wins), with the update's `details` merged into the item's (fields it does not
   * name keep their value). Either way one round trip: when nothing was recorded, the item as it
   * is comes back instead. Throws {@link UnknownRunError}.
   */
  async recordItemIf(
    runId: string,
    itemKey: string,
    onlyIfStatus: ItemStatus,
    update: ItemUpdate,
  ): Promise<
    | (RecordedItem & { readonly recorded: true })
    | { readonly recorded: false; readonly item: ItemRecord | undefined }
  > {
    const reply = await this.runRecordScript(runId, itemKey, update, {
      onlyIfStatus,
      mergeDetails: true,
    });
    if (reply[0] === NOT_RECORDED) {
      const json = reply[1] ?? '';
      return {
        recorded: false,
        item: json === '' ? undefined : itemFromStored(runId, itemKey, json),
      };
    }
    const recorded = this.recorded(runId, itemKey, update.status, reply);
    return {
      recorded: true,
      get item() {
        return recorded.item;
      },
      previousStatus: recorded.previousStatus,
      runCounts: recorded.runCounts,
    };
  }

  private async runRecordScript(
    runId: string,
    itemKey: string,
    update: ItemUpdate,
    options: {
      readonly onlyIfStatus: ItemStatus | '';
      readonly mergeDetails: boolean;
      readonly finishRunIfLast?: boolean;
    },
  ): Promise<string[]> {
    if (itemKey === '') throw new TypeError('an item key must not be empty');
    const start = this.pendingStart(runId);
    const args = [
      this.keys.base,
      runId,
      itemKey,
      this.clock().getTime(),
      JSON.stringify(storedPatch(update)),
      options.onlyIfStatus,
      options.mergeDetails ? '1' : '0',
      options.finishRunIfLast === true ? '1' : '0',
      start,
    ];
    const reply = (await withKnownRun(runId, () =>
      recordItemScript.run(this.redis, [this.keys.run(runId), this.keys.items(runId)], args),
    )) as string[];
    if (reply[0] !== NOT_RECORDED) this.startRecorded(runId, start);
    return reply;
  }

  /**
   * How many lanes the run's items are split into: `proposed`, unless a count is on record
   * already (a repeated fan-out keeps the first). Throws {@link UnknownRunError}.
   */
  async laneCount(runId: string, proposed: number): Promise<number> {
    return Number(
      await withKnownRun(runId, () =>
        laneCountScript.run(this.redis, [this.keys.run(runId)], [proposed]),
      ),
    );
  }

  /**
   * Queues a run's items for its lanes (`lanes` of them), unless they are queued already or a
   * lane has taken them. Returns how many were queued.
   */
  async enqueueForLanes(
    runId: string,
    lanes: number,
    itemKeys: readonly string[],
  ): Promise<number> {
    let queued = 0;
    const laneKeys = Array.from({ length: lanes }, (_, lane) => this.keys.lane(runId, lane));
    for (let first = 0; first < itemKeys.length; first += ENQUEUE_BATCH) {
      queued += Number(
        await enqueueForLanesScript.run(
          this.redis,
          [this.keys.laneQueue(runId), ...laneKeys],
          itemKeys.slice(first, first + ENQUEUE_BATCH),
        ),
      );
    }
    return queued;
  }

  /**
   * Up to `limit` items for a lane, with their records: first up to `fromQueue` from the run's
   * lane queue (taken into the lane, due at `leaseUntil`), then the lane's own items due by
   * `upTo` (epoch ms), the earliest first. Undefined when there is no such run. One round trip.
   */
  async dueItems(
    runId: string,
    lane: number,
    options: {
      readonly upTo: number;
      readonly limit: number;
      readonly fromQueue: number;
      readonly leaseUntil: number;
    },
  ): Promise<DueItems | undefined> {
    const reply = (await dueItemsScript.run(
      this.redis,
      [
        this.keys.run(runId),
        this.keys.items(runId),
        this.keys.lane(runId, lane),
        this.keys.laneQueue(runId),
      ],
      [
        Math.floor(options.upTo),
        options.limit,
        Math.round(options.leaseUntil),
        Math.max(0, Math.min(options.fromQueue, options.limit)),
      ],
    )) as (string | number)[];
    const [status = '', size = 0, next = '', queued = 0, ...flat] = reply;
    if (status === '') return undefined;
    const items: { itemKey: string; dueAt: number; item: ItemRecord | undefined }[] = [];
    for (let index = 0; index + 2 < flat.length; index += 3) {
      const itemKey = String(flat[index]);
      const json = String(flat[index + 2]);
      items.push({
        itemKey,
        dueAt: Number(flat[index + 1]),
        item: json === '' ? undefined : itemFromStored(runId, itemKey, json),
      });
    }
    return {
      runStatus: status as OutcomeStatus,
      laneSize: Number(size),
      nextDueAt: next === '' ? undefined : Number(next),
      queued: Number(queued),
      items,
    };
  }

  /**
   * Records several items of a run and moves each in its lane, in one script: each write as
   * {@link recordItemIf} (with `onlyIfStatus`) or {@link recordItem} would, the observer told
   * of each as they would tell it. With `step`, its `check` runs first (a refusal records
   * nothing and throws its error) and its `then` last. Throws {@link UnknownRunError}.
   */
  async recordItems(
    runId: string,
    lane: number,
    writes: readonly ItemWrite[],
    step?: AtomicStep,
  ): Promise<RecordedItems> {
    const start = this.pendingStart(runId);
    const now = this.clock().getTime();
    const args: (string | number)[] = [this.keys.base, runId, now, start];
    for (const write of writes) {
      if (write.itemKey === '') throw new TypeError('an item key must not be empty');
      args.push(
        write.itemKey,
        write.update === undefined ? '' : JSON.stringify(storedPatch(write.update)),
        write.onlyIfStatus ?? '',
        write.mergeDetails === true ? '1' : '0',
        write.finishRunIfLast === true ? '1' : '0',
        write.dueAt === undefined ? '' : write.dueAt === null ? '-' : Math.round(write.dueAt),
      );
    }
    const keys = [
      this.keys.run(runId),
      this.keys.items(runId),
      this.keys.lane(runId, lane),
      this.keys.laneQueue(runId),
    ];
    const script = recordItemsScript(step);
    const reply = (await withKnownRun(runId, () =>
      script.run(this.redis, [...(step?.keys ?? []), ...keys], [...(step?.args ?? []), ...args]),
    )) as string[];
    if (step !== undefined && reply[0] === REFUSED) throw step.refused(Number(reply[1]));
    const results: RecordedItems['results'][number][] = [];
    let at = 1;
    let startRecorded = false;
    for (const write of writes) {
      const length = Number(reply[at] ?? 0);
      const one = reply.slice(at + 1, at + 1 + length);
      at += 1 + length;
      if (write.update === undefined) {
        results.push(undefined);
      } else if (one[0] === NOT_RECORDED) {
        const json = one[1] ?? '';
        results.push({
          recorded: false,
          item: json === '' ? undefined : itemFromStored(runId, write.itemKey, json),
        });
      } else {
        startRecorded = true;
        results.push({
          recorded: true,
          ...this.recorded(runId, write.itemKey, write.update.status, one),
        });
      }
    }
    if (startRecorded) this.startRecorded(runId, start);
    return { results, stepResult: Number(reply[0] ?? 0) };
  }

  /**
   * Creates the items that do not exist yet, in batches (a run's fan-out): an item already
   * recorded is left as it is, so repeating this after a crash never moves an item back.
   * Returns how many were created. Throws {@link UnknownRunError}.
   */
  async createItems(
    runId: string,
    items: readonly (readonly [itemKey: string, update: ItemUpdate])[],
  ): Promise<number> {
    let created = 0;
    const now = this.clock().getTime();
    for (let first = 0; first < items.length; first += CREATE_BATCH) {
      const start = this.pendingStart(runId);
      const args: (string | number)[] = [this.keys.base, runId, now, start];
      for (const [itemKey, update] of items.slice(first, first + CREATE_BATCH)) {
        if (itemKey === '') throw new TypeError('an item key must not be empty');
        args.push(itemKey, JSON.stringify({ ...storedPatch(update), ua: now }));
      }
      try {
        created += Number(
          await createItemsScript.run(
            this.redis,
            [this.keys.run(runId), this.keys.items(runId)],
            args,
          ),
        );
        this.startRecorded(runId, start);
      } catch (error) {
        if (error instanceof Error && error.message.includes('PAW_NO_SUCH_RUN')) {
          throw new UnknownRunError(runId);
        }
        throw error;
      }
    }
    return created;
  }

  /** What {@link recordItem} returns, from the script's reply (and the observer told). */
  private recorded(
    runId: string,
    itemKey: string,
    status: ItemStatus,
    reply: string[],
  ): RecordedItem {
    const [previous = '', json = '{}', ...rest] = reply;
    const [total, queued, running, succeeded, failed, skipped, timedOut, canceled] = rest
      .slice(0, 8)
      .map(Number);
    const [finishedStatus, finishedFrom, ...finishedRun] = rest.slice(8);
    const runFinished =
      finishedStatus === undefined || finishedStatus === ''
        ? undefined
        : this.reportFinished(finishedStatus, finishedFrom ?? '', finishedRun);
    // Parsed only when someone reads it: most updates of a snapshot night are written, not read.
    let item: ItemRecord | undefined;
    const itemOf = (): ItemRecord => (item ??= itemFromStored(runId, itemKey, json));
    const previousStatus = previous === '' ? undefined : (previous as OutcomeStatus);
    if (
      this.observer?.itemFinished !== undefined &&
      !isActiveStatus(status) &&
      (previousStatus === undefined || isActiveStatus(previousStatus))
    ) {
      const observer = this.observer;
      observe(() => observer.itemFinished?.(itemOf(), previousStatus));
    }
    return {
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

  /**
   * A finish script's answer: the final status, and the observer told when this call ended the
   * run (it was still queued or running before).
   */
  private reportFinished(status: string, before: string, flat: readonly string[]): OutcomeStatus {
    const observer = this.observer;
    if (observer?.runFinished !== undefined && isActiveStatus(before as OutcomeStatus)) {
      const finished = runFromHash(hashOf(flat));
      if (finished !== undefined) observe(() => observer.runFinished?.(finished));
    }
    return status as OutcomeStatus;
  }

  /** One item of a run, or `undefined`. */
  async getItem(runId: string, itemKey: string): Promise<ItemRecord | undefined> {
    const json = await this.redis.hget(this.keys.items(runId), itemKey);
    return json === null ? undefined : itemFromStored(runId, itemKey, json);
  }

  /**
   * Finishes a run and returns its final status. A run recorded as skipped or missed stays so.
   * Safe to repeat. Throws {@link UnknownRunError}.
   */
  async finishRun(runId: string, finish: RunFinish = {}): Promise<OutcomeStatus> {
    const start = this.pendingStart(runId);
    const [status = '', before = '', ...flat] = (await finishRunScript.run(
      this.redis,
      [this.keys.run(runId)],
      [
        runId,
        this.clock().getTime(),
        finish.status ?? '',
        finish.errorCode ?? '',
        (finish.errorMessage ?? '').slice(0, MAX_ERROR_MESSAGE_LENGTH),
        this.keys.base,
        start,
      ],
    )) as string[];
    if (status === '') throw new UnknownRunError(runId);
    this.startRecorded(runId, start);
    return this.reportFinished(status, before, flat);
  }
}

/** What the run-creating script answered (see {@link OutcomeStore.runCreation}). */
export function runCreated(reply: unknown): { created: boolean; status: OutcomeStatus } {
  const [created, status] = reply as [number, string];
  return { created: created === 1, status: status as OutcomeStatus };
}

/** A hash from a flat field/value list (HGETALL's reply as a script returns it). */
function hashOf(flat: readonly string[]): Record<string, string> {
  const hash: Record<string, string> = {};
  for (let index = 0; index + 1 < flat.length; index += 2) {
    hash[flat[index] ?? ''] = flat[index + 1] ?? '';
  }
  return hash;
}

/** Items created per script call by {@link OutcomeStore.createItems}. */
const CREATE_BATCH = 500;

/** Items queued per script call by {@link OutcomeStore.enqueueForLanes}. */
const ENQUEUE_BATCH = 1000;

/** The first element of a composed script's reply when its {@link AtomicStep} refused. */
const REFUSED = 'PAW_STEP_REFUSED';

/** Runs `call`, turning the scripts' `PAW_NO_SUCH_RUN` error into {@link UnknownRunError}. */
async function withKnownRun<T>(runId: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof Error && error.message.includes('PAW_NO_SUCH_RUN')) {
      throw new UnknownRunError(runId);
    }
    throw error;
  }
}

const recordItemsScripts = new Map<string, RedisScript>();

/**
 * The script behind {@link OutcomeStore.recordItems}: `step.check`, then for each write its
 * record (pawRecordItem) and, when it was made, its lane's move, then `step.then`. KEYS: the
 * step's, then run, items, lane, lane queue. ARGV: the step's, then base, runId, nowMs, start, then six per
 * write: item key, patch JSON ('' records nothing), required status, merge ('1'), finish the run
 * if last ('1'), due time ('' unchanged, '-' out of the lane). Returns {then's number, then per
 * write the length of its record's reply and that reply}, or {REFUSED, code}.
 */
function recordItemsScript(step: AtomicStep | undefined): RedisScript {
  const name = step?.name ?? '';
  let script = recordItemsScripts.get(name);
  if (script === undefined) {
    const k = step?.keys.length ?? 0;
    const a = step?.args.length ?? 0;
    script = new RedisScript(
      step === undefined ? 'paw-record-items' : `paw-record-items-${name}`,
      `${recordItemFunction}
local function pawCheck()
${step?.check ?? 'return 0'}
end
local function pawThen(laneKey, queueKey)
${step?.then ?? 'return 0'}
end
local checked = pawCheck()
if type(checked) == 'number' and checked < 0 then return {'${REFUSED}', tostring(checked)} end
local runKey, itemsKey, laneKey, queueKey = KEYS[${k + 1}], KEYS[${k + 2}], KEYS[${k + 3}], KEYS[${k + 4}]
local base, runId, nowMs, start = ARGV[${a + 1}], ARGV[${a + 2}], ARGV[${a + 3}], ARGV[${a + 4}]
local reply = {0}
for i = ${a + 5}, #ARGV, 6 do
  local itemKey, patch, due = ARGV[i], ARGV[i + 1], ARGV[i + 5]
  local record = nil
  if patch ~= '' then
    record = pawRecordItem(runKey, itemsKey, base, runId, itemKey, nowMs, patch, ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], start)
    if record.err then return record end
    -- A start deferred to the next write is recorded once.
    if record[1] ~= '${NOT_RECORDED}' then start = '' end
  end
  if record == nil or record[1] ~= '${NOT_RECORDED}' then
    if due == '-' then redis.call('ZREM', laneKey, itemKey)
    elseif due ~= '' then redis.call('ZADD', laneKey, due, itemKey) end
  end
  if record == nil then
    reply[#reply + 1] = 0
  else
    reply[#reply + 1] = #record
    for j = 1, #record do reply[#reply + 1] = record[j] end
  end
end
reply[1] = pawThen(laneKey, queueKey)
return reply
`,
    );
    recordItemsScripts.set(name, script);
  }
  return script;
}

/** Calls an observer, swallowing what it throws: observing must never fail the store. */
function observe(call: () => void): void {
  try {
    call();
  } catch {
    // The observer's own failure is not the run's.
  }
}
