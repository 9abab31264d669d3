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
  finishRunScript,
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
 * Another component's atomic step, run in the same Lua script as an item's record and before
 * it (a BullMQ job's move to the delayed set, say): the item's new state and the step land
 * together, in one round trip, or not at all.
 */
export interface AtomicStep {
  /** Names the composed script; one script is kept per name, so a name always means one `lua`. */
  readonly name: string;
  /**
   * The body of a Lua function that reads its own `KEYS[1..keys.length]` and
   * `ARGV[1..args.length]` and returns a number: a negative one refuses the step, and then
   * nothing is recorded either.
   */
  readonly lua: string;
  readonly keys: readonly string[];
  readonly args: readonly (string | number)[];
  /** The error {@link OutcomeStore.recordItem} throws for a refusal code. */
  readonly refused: (code: number) => Error;
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
   * With `along`, that step runs first in the same script: when it refuses, nothing is recorded
   * and its error is thrown. Throws {@link UnknownRunError}.
   */
  async recordItem(
    runId: string,
    itemKey: string,
    update: ItemUpdate,
    options: { readonly along?: AtomicStep; readonly finishRunIfLast?: boolean } = {},
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
      readonly along?: AtomicStep;
      readonly onlyIfStatus: ItemStatus | '';
      readonly mergeDetails: boolean;
      readonly finishRunIfLast?: boolean;
    },
  ): Promise<string[]> {
    if (itemKey === '') throw new TypeError('an item key must not be empty');
    const keys = [this.keys.run(runId), this.keys.items(runId)];
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
    const along = options.along;
    let reply: string[];
    try {
      reply = (
        along === undefined
          ? await recordItemScript.run(this.redis, keys, args)
          : await composedScript(along).run(
              this.redis,
              [...along.keys, ...keys],
              [...along.args, ...args],
            )
      ) as string[];
    } catch (error) {
      if (error instanceof Error && error.message.includes('PAW_NO_SUCH_RUN')) {
        throw new UnknownRunError(runId);
      }
      throw error;
    }
    if (along !== undefined && reply[0] === REFUSED) throw along.refused(Number(reply[1]));
    if (reply[0] !== NOT_RECORDED) this.startRecorded(runId, start);
    return reply;
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

/** The first element of a composed script's reply when its {@link AtomicStep} refused. */
const REFUSED = 'PAW_STEP_REFUSED';

const composedScripts = new Map<string, RedisScript>();

/**
 * The script that runs `step` and then, unless it refused, records the item (its KEYS and ARGV
 * come after the step's).
 */
function composedScript(step: AtomicStep): RedisScript {
  let script = composedScripts.get(step.name);
  if (script === undefined) {
    const k = step.keys.length;
    const a = step.args.length;
    script = new RedisScript(
      `paw-record-item-along-${step.name}`,
      `${recordItemFunction}
local function pawAlong()
${step.lua}
end
local stepResult = pawAlong()
if type(stepResult) == 'number' and stepResult < 0 then return {'${REFUSED}', tostring(stepResult)} end
return pawRecordItem(KEYS[${k + 1}], KEYS[${k + 2}], ARGV[${a + 1}], ARGV[${a + 2}], ARGV[${a + 3}], ARGV[${a + 4}], ARGV[${a + 5}], ARGV[${a + 6}], ARGV[${a + 7}], ARGV[${a + 8}], ARGV[${a + 9}])
`,
    );
    composedScripts.set(step.name, script);
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
