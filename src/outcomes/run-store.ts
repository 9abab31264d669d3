import type { Redis } from 'ioredis';
import type { JobKind } from '../definitions/job-definition.js';
import { luaScript } from '../redis/lua-file.js';
import type { DeferredStarts } from './deferred-starts.js';
import type { OutcomeKeys } from './outcome-keys.js';
import { reportFinish, tellObserver, type OutcomeObserver } from './outcome-observer.js';
import {
  MAX_ERROR_MESSAGE_LENGTH,
  runFromFlatHash,
  runFromHash,
  type RunRecord,
} from './outcome-records.js';
import { isActiveStatus, type OutcomeStatus, type RunTrigger } from './outcome-status.js';
import { UnknownRunError } from './unknown-run-error.js';

const createRunScript = luaScript('outcomes/lua/createRun-4.lua');
const startRunScript = luaScript('outcomes/lua/startRun-1.lua');
const finishRunScript = luaScript('outcomes/lua/finishRun-1.lua');
const endFanOutScript = luaScript('outcomes/lua/endFanOut-1.lua');

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

/** What {@link RunStore.endFanOut} did. */
export type FanOutEnd =
  /** Items are still queued or running: the last of them to end finishes the run. */
  | { readonly finished: false }
  /** The run is finished (by this call, or it had ended already), with this status. */
  | { readonly finished: true; readonly status: OutcomeStatus };

/** What {@link RunStore.create} found. */
export interface RunCreated {
  /** Whether this call created the run. */
  readonly created: boolean;
  /** The status of the run that exists now. */
  readonly status: OutcomeStatus;
}

/**
 * A run's creation as part of a script that does something else in the same step (adds the run's
 * BullMQ job: src/scheduler/run-creation.ts, whose script includes
 * src/outcomes/lua/includes/createRun.lua): the KEYS and ARGV of `pawCreateRun`, in
 * createRun-4.lua's order. Read the script's answer with
 * {@link runCreated}.
 */
export interface RunCreation {
  readonly keys: readonly [run: string, runs: string, runsOf: string, active: string];
  readonly args: readonly (string | number)[];
}

/** What {@link RunStore.start} found. */
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

/**
 * The durable record of every run, in Redis (key layout: outcome-keys.ts). The scheduler creates
 * runs (queued, skipped or missed); processors start and finish them, and record their items
 * through the {@link ItemStore} (src/outcomes/item-store.ts). Every step is one atomic script
 * (src/outcomes/lua/) and safe to repeat.
 *
 * Lifecycle for a processor:
 * 1. `start(runId, { recordWithNextWrite: true })`; if `started` is false the run is already
 *    finished (or was skipped): do nothing. The start is recorded by the next write.
 * 2. record the run's items (ItemStore).
 * 3. `finish(runId)` once every item is final (its status is derived from the items), or record
 *    the last item with `finishRunIfLast`: the item that ends last finishes the run in the same
 *    step (finishing twice is harmless).
 */
export class RunStore {
  /**
   * @param starts the starts this process deferred to its next write, shared with the other
   *   writers of the process's runs.
   * @param observer told when a run ends; never fails a call.
   */
  constructor(
    private readonly redis: Redis,
    private readonly keys: OutcomeKeys,
    private readonly starts: DeferredStarts,
    private readonly clock: () => Date,
    private readonly observer?: OutcomeObserver,
  ) {}

  /**
   * Creates a run unless one with this id exists. Returns whether it was created and the status
   * of the run that exists now.
   */
  async create(run: NewRun): Promise<RunCreated> {
    const { keys, args } = this.creation(run);
    return runCreated(await createRunScript.run(this.redis, keys, args));
  }

  /** The KEYS and ARGV that create `run` in a script of another step: see {@link RunCreation}. */
  creation(run: NewRun): RunCreation {
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
  async get(runId: string): Promise<RunRecord | undefined> {
    return runFromHash(await this.redis.hgetall(this.keys.run(runId)));
  }

  /**
   * The oldest run of `definitionId` fired before `before` that is still queued or running, if
   * any: what the overlap policy `skip` asks about.
   */
  async activeBefore(definitionId: string, before: Date): Promise<RunRecord | undefined> {
    const key = this.keys.active(definitionId);
    const runIds = await this.redis.zrangebyscore(key, '-inf', `(${before.getTime()}`);
    for (const runId of runIds) {
      const run = await this.get(runId);
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
   * write for it, in the same script (src/outcomes/deferred-starts.ts says why). A run's start
   * then costs no write of its own, and a start that crashed before doing anything leaves no
   * trace.
   */
  async start(
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
        if (started) this.starts.defer(runId, now);
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
    const run = runFromFlatHash(flat);
    if (run === undefined) throw new UnknownRunError(runId);
    if (missedNow === '1') {
      // It ends here, past its start deadline: tell the observer as any other end of a run.
      const observer = this.observer;
      if (observer?.runFinished !== undefined) tellObserver(() => observer.runFinished?.(run));
      return { started: false, previousStatus: run.status, run };
    }
    const previousStatus = previous as OutcomeStatus;
    return { started: isActiveStatus(previousStatus), previousStatus, run };
  }

  /**
   * The end of a run's fan-out: the run's items were created page by page (ItemStore.create with
   * `fanningOut`), and while it was fanning out no item that ended finished it. Clears that, and
   * finishes the run in the same step when none of its items is queued or running (its last item
   * to end finishes it otherwise). With `failure` (the fan-out failed for good): a run with items
   * recorded keeps going with them and ends `failed` with the failure once they end; a run with
   * none is finished `failed` now (src/outcomes/lua/endFanOut-1.lua). Safe to repeat. Throws
   * {@link UnknownRunError}.
   */
  async endFanOut(
    runId: string,
    failure?: { readonly errorCode: string; readonly errorMessage: string },
  ): Promise<FanOutEnd> {
    const start = this.starts.of(runId);
    const [status = '', before = '', ...flat] = (await endFanOutScript.run(
      this.redis,
      [this.keys.run(runId)],
      [
        runId,
        this.clock().getTime(),
        failure?.errorCode ?? '',
        (failure?.errorMessage ?? '').slice(0, MAX_ERROR_MESSAGE_LENGTH),
        this.keys.base,
        start,
      ],
    )) as string[];
    if (status === '' && before === '') throw new UnknownRunError(runId);
    this.starts.recorded(runId, start);
    if (status === '') return { finished: false };
    return { finished: true, status: reportFinish(this.observer, status, before, flat) };
  }

  /**
   * Finishes a run and returns its final status. A run recorded as skipped or missed stays so.
   * Safe to repeat. Throws {@link UnknownRunError}.
   */
  async finish(runId: string, finish: RunFinish = {}): Promise<OutcomeStatus> {
    const start = this.starts.of(runId);
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
    this.starts.recorded(runId, start);
    return reportFinish(this.observer, status, before, flat);
  }
}

/** What a run-creating script answered: {1 created | 0 existed, the run's status, ...}. */
export function runCreated(reply: unknown): RunCreated {
  const [created, status] = reply as [number, string];
  return { created: created === 1, status: status as OutcomeStatus };
}
