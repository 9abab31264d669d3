import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { setMaxListeners } from 'node:events';
import type { ItemRecord } from '../../../outcomes/outcome-records.js';
import { UnknownRunError } from '../../../outcomes/unknown-run-error.js';
import { backoffDelay } from '../../../queue/job-backoff.js';
import { LostJobError, ownedJobStep } from '../../../queue/delayed-move.js';
import { failureFacts } from '../../job-failure.js';
import { continueAfterShutdown, continueStepAt, lockToken } from '../../../queue/step-job.js';
import { SnapshotItemSteps, type ItemOutcome, type ItemStepContext } from '../item-step.js';
import type { SnapshotDependencies } from '../snapshot-dependencies.js';
import { LaneHands } from './lane-hands.js';
import type { ItemWrite } from './lane-queue.js';
import { LANE_TIMING, LaneTiming, type LaneMoment } from './lane-timing.js';
import { snapshotLaneDataSchema, type SnapshotLaneData } from './snapshot-lane-job.js';

/**
 * A lane of a snapshot run: one BullMQ step job working through a share of the run's items
 * (docs/worker.md, "A snapshot run"). The items no lane has taken yet wait in the run's lane
 * queue; those a lane has taken are in its own sorted set, each scored by when it is next due,
 * beside the items' records in the outcome store. The job carries only which lane it is. Each
 * run of the job:
 *
 * 1. reads its items due, and as many more from the run's lane queue as it has room for, with
 *    their records (one round trip), and takes them in one write: an item to trigger gets its
 *    intent on record, an item to poll or reconcile a lease;
 * 2. runs each item's step ({@link SnapshotItemSteps}) at once, through the platform's shared
 *    request gate, taking more whenever the gate's line runs short (so the rate is used whatever
 *    the platform's latency);
 * 3. records what the steps came to, many items per script, at least every write interval;
 * 4. with nothing in flight and nothing due within its hold, or at the end of its wake, records
 *    the rest and moves itself, in the same script, to the delayed set until its earliest item
 *    is due; with no item left in it nor in the queue, it completes. At the end of a wake with
 *    items due soon and no other job waiting for a slot, it stays instead and carries on as a
 *    new wake.
 *
 * When it reads, writes, waits and leaves is {@link LaneTiming}'s to say (the wake, the write
 * interval, the hold, the requests kept waiting at the gate, the room a read waits for, how far
 * a read looks ahead): the loop asks it and does what it says.
 *
 * Every write checks first that the job is still this worker's: one that lost it (its lock
 * expired, another worker took the lane over) records nothing more.
 */
export class SnapshotLaneJob {
  private readonly steps: SnapshotItemSteps;

  constructor(private readonly dependencies: SnapshotDependencies) {
    this.steps = new SnapshotItemSteps(dependencies);
  }

  async process(job: Job, token: string | undefined, signal?: AbortSignal): Promise<unknown> {
    const parsed = snapshotLaneDataSchema.safeParse(job.data);
    if (!parsed.success) {
      throw new UnrecoverableError(`snapshot lane job ${job.id ?? '?'} has invalid data`);
    }
    const data = parsed.data;
    // Every item in flight listens to the job's signal (its requests abort with it).
    if (signal !== undefined) setMaxListeners(LANE_TIMING.inFlightMax + 16, signal);
    const logger = this.dependencies.logger.child({
      kind: 'snapshot',
      runId: data.runId,
      jobId: job.id,
      lane: data.lane,
    });
    const wake = new LaneWake(this.dependencies, this.steps, job, lockToken(job, token), data, {
      runId: data.runId,
      slaDomainId: data.slaDomainId,
      maxWaitMs: data.maxWaitMs,
      signal,
      logger,
    });
    try {
      return await wake.run();
    } catch (error) {
      if (error instanceof DelayedError || error instanceof LostJobError) throw error;
      if (error instanceof UnknownRunError) {
        throw new UnrecoverableError(`run ${data.runId} has no outcome record (trimmed?)`);
      }
      if (signal?.aborted === true) return continueAfterShutdown(job, token);
      // A lane must outlive anything that goes wrong in one of its runs (Redis gone for a
      // while, a bug in one item): it comes back later, without using an attempt, and carries
      // on from its records.
      const retryMs = backoffDelay(wake.failures + 1, this.dependencies.settings.queues.backoff);
      logger.error(
        { ...failureFacts(error), retryMs },
        'snapshot lane failed; it carries on from its records',
      );
      return continueStepAt(job, token, Date.now() + retryMs);
    }
  }
}

/** One run of a lane's job (see {@link SnapshotLaneJob}). */
class LaneWake {
  /** Errors of this run so far (the next run's backoff). */
  failures = 0;
  /** The items in the lane's hands, each in one phase (lane-hands.ts). */
  private readonly hands = new LaneHands();
  /**
   * When the lane's earliest item not in hand is due, as far as this run knows: from its last
   * read, and the due times it has written since.
   */
  private nextDueAt = Number.POSITIVE_INFINITY;
  /** When this wake began: the job's run, or the wake's end at which the lane kept its job. */
  private wakeStartedAt = Date.now();
  private lastWriteAt = this.wakeStartedAt;
  /** When the lane may have more due items to take (0: now). */
  private nextReadAt = 0;
  private wakeUp: (() => void) | undefined;
  private readonly timing: LaneTiming;

  constructor(
    private readonly dependencies: SnapshotDependencies,
    private readonly steps: SnapshotItemSteps,
    private readonly job: Job,
    private readonly token: string,
    private readonly data: SnapshotLaneData,
    private readonly context: ItemStepContext,
  ) {
    this.timing = new LaneTiming({
      requestsPerSecond: dependencies.settings.platform.requestsPerSecond,
      lanes: data.lanes,
      pollMinMs: dependencies.settings.worker.snapshotPoll.minMs,
    });
  }

  async run(): Promise<unknown> {
    for (;;) {
      const room = this.timing.toRead(this.moment(), Date.now());
      if (room !== undefined) this.nextReadAt = await this.take(room);
      const next = this.timing.next(this.moment(), Date.now());
      switch (next.kind) {
        case 'write':
          await this.write();
          this.lastWriteAt = Date.now();
          continue;
        case 'wait-for-an-end':
          await this.nextEnd(next.ms);
          continue;
        case 'read':
          continue;
        case 'hold':
          await this.nextEnd(next.ms, this.dependencies.stopping);
          this.nextReadAt = 0;
          continue;
        case 'leave': {
          // The rest, and the move to when the lane is next due, in one script; or the job
          // stays this run's, which carries on as a new wake.
          const step = await this.write({
            moveToNextDue: true,
            ...(next.stayIfDueWithinMs === undefined
              ? {}
              : { stayIfDueWithinMs: next.stayIfDueWithinMs }),
          });
          this.lastWriteAt = Date.now();
          if (step === 'stayed') {
            this.wakeStartedAt = this.lastWriteAt;
            this.nextReadAt = 0;
            continue;
          }
          if (step === 'moved') throw new DelayedError();
          this.context.logger.info('snapshot lane done: every item of it has ended');
          return { lane: this.data.lane, status: 'done' };
        }
      }
    }
  }

  /** What the lane's timing decides from (see {@link LaneTiming}). */
  private moment(): LaneMoment {
    return {
      wakeStartedAt: this.wakeStartedAt,
      lastWriteAt: this.lastWriteAt,
      nextReadAt: this.nextReadAt,
      nextDueAt: this.nextDueAt,
      inFlight: this.hands.count('stepping'),
      atGate: this.dependencies.platform.requestsWaiting(),
      toWrite: this.hands.count('ended'),
      toTriggerAgain: this.hands.count('trigger-again'),
      stopping: this.dependencies.stopping.aborted || this.context.signal?.aborted === true,
    };
  }

  /**
   * Reads up to `room` due items and takes them, with the items to trigger again (one write:
   * intents and leases, each with a new fence), then starts their steps. Returns when the lane
   * may have more due items: now when the read was full, else when its next item is due.
   */
  private async take(room: number): Promise<number> {
    const { lanes } = this.dependencies;
    const now = Date.now();
    const again = this.hands.inPhase('trigger-again');
    const due: ItemRecord[] = [];
    let nextReadAt = Number.POSITIVE_INFINITY;
    if (room > 0) {
      // Items due a little later are taken now too: one read serves them all.
      const slack = this.timing.readAheadMs;
      // Items in hand may come back due (their lease ran out while their step runs): ask for as
      // many more.
      const inHand = this.hands.size;
      const read = await lanes.due(this.data.runId, this.data.lane, {
        upTo: now + slack,
        limit: room + inHand,
        fromQueue: room,
        leaseUntil: this.steps.leaseUntil(now),
      });
      if (read === undefined) throw new UnknownRunError(this.data.runId);
      for (const { itemKey, item } of read.items) {
        if (this.hands.has(itemKey) || due.length >= room) continue;
        if (item === undefined) {
          // In the lane without a record (a run trimmed mid-way): nothing to do for it.
          this.hands.set(itemKey, {
            phase: 'ended',
            fence: undefined,
            write: { itemKey, dueAt: null },
          });
          continue;
        }
        due.push(item);
      }
      const full = read.items.length >= room + inHand || read.queued > 0;
      this.nextDueAt = read.nextDueAt ?? Number.POSITIVE_INFINITY;
      nextReadAt = full ? now : this.nextDueAt;
    }
    if (due.length === 0 && again.length === 0) return nextReadAt;

    // One write takes them all; each write's step, in the same order.
    const writes: ItemWrite[] = [];
    const stepsOf: [ItemRecord, 'trigger' | 'poll' | 'reconcile'][] = [];
    for (const [itemKey, state] of again) {
      // The step that found no trace hands the item on to a new intent, while it still holds it.
      writes.push({
        ...this.steps.intent(state.item, this.context, now),
        fence: { take: true, from: state.fence },
      });
      stepsOf.push([state.item, 'trigger']);
      this.hands.set(itemKey, { phase: 'taking' });
    }
    for (const item of due) {
      const state = this.steps.stateOf(item);
      if (state === 'gone') {
        this.hands.set(item.itemKey, {
          phase: 'ended',
          fence: undefined,
          write: { itemKey: item.itemKey, dueAt: null },
        });
        continue;
      }
      writes.push(
        state === 'trigger'
          ? { ...this.steps.intent(item, this.context, now), fence: { take: true } }
          : { itemKey: item.itemKey, dueAt: this.steps.leaseUntil(now), fence: { take: true } },
      );
      stepsOf.push([item, state]);
      this.hands.set(item.itemKey, { phase: 'taking' });
    }
    let taken;
    try {
      taken = await lanes.write(
        this.data.runId,
        this.data.lane,
        writes,
        ownedJobStep(this.job, this.token),
      );
    } catch (error) {
      // Nothing was taken: their leases (or the next owner's reads) bring them back.
      for (const write of writes) this.hands.release(write.itemKey);
      throw error;
    }
    // An intent is on record before its trigger is sent.
    for (const [index, write] of writes.entries()) {
      const result = taken.results[index];
      if (write.update === undefined || result?.stale !== false) continue;
      if (result.record?.recorded === true) {
        this.dependencies.crashPoints.reach('snapshot.after-intent');
      }
    }
    for (const [index, write] of writes.entries()) {
      const result = taken.results[index];
      const [item, step] = stepsOf[index] ?? [];
      if (result === undefined || item === undefined || step === undefined) continue;
      if (result.stale) {
        this.staleStep(write.itemKey, 'taking it');
        continue;
      }
      if (write.update !== undefined && result.record?.recorded !== true) {
        // Its status changed since it was read: not this run's to trigger.
        this.hands.set(write.itemKey, { phase: 'left-alone' });
        continue;
      }
      if (result.fence === undefined) {
        this.hands.release(write.itemKey);
        continue;
      }
      const recorded = result.record?.recorded === true ? result.record.item : item;
      this.start(write.itemKey, result.fence, () =>
        step === 'trigger'
          ? this.steps.trigger(recorded, this.context)
          : step === 'poll'
            ? this.steps.poll(item, this.context)
            : this.steps.reconcile(item, this.context),
      );
    }
    return nextReadAt;
  }

  /** Runs an item's step under `fence`; what it comes to waits for the next write. */
  private start(itemKey: string, fence: number, step: () => Promise<ItemOutcome>): void {
    this.hands.set(itemKey, { phase: 'stepping', fence });
    step()
      .then(
        (outcome) => {
          const held = this.hands.get(itemKey);
          if (held?.phase !== 'stepping' || held.fence !== fence) {
            // Nothing else moves an item that is stepping: this would be a bug, and the item's
            // fence keeps whatever the step came to from being written over another's.
            this.context.logger.error(
              { target: itemKey, fence, phase: held?.phase },
              'a snapshot item step ended for an item no longer in its hands; what it came to is dropped',
            );
            return;
          }
          if (outcome.kind === 'write') {
            this.hands.set(itemKey, {
              phase: 'ended',
              fence,
              write: outcome.write,
              after: outcome.after,
            });
          } else if (outcome.kind === 'trigger-again') {
            this.hands.set(itemKey, { phase: 'trigger-again', fence, item: outcome.item });
          } else {
            this.hands.release(itemKey);
          }
        },
        (error: unknown) => {
          // A step's own failures are settled inside it; this is a bug or a lost Redis
          // connection: the item is left as it is, and due again after its lease.
          this.failures++;
          this.hands.release(itemKey);
          this.context.logger.error(
            { target: itemKey, ...failureFacts(error) },
            'a snapshot item step failed unexpectedly; it is taken up again later',
          );
        },
      )
      .finally(() => this.wakeUp?.());
  }

  /** A write refused by the item's fence: another step took the item since this one did. */
  private staleStep(itemKey: string, doing: string): void {
    this.hands.release(itemKey);
    this.context.logger.warn(
      { target: itemKey },
      `another step took the snapshot item since this one did; ${doing} was not recorded`,
    );
  }

  /** Waits until an item in flight ends, `ms` passes, or `stop` fires. */
  private nextEnd(ms: number, stop?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        stop?.removeEventListener('abort', done);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      stop?.addEventListener('abort', done);
      this.wakeUp = done;
    });
  }

  /**
   * Records what the steps came to so far, in one script, each under its step's fence, while the
   * job is still this worker's; with `moveToNextDue`, moves the job in the same script
   * (`ownedJobStep`). The items written leave the lane's hands. Returns what the job's step came
   * to: moved to the delayed set, stayed this run's, or neither (nothing left: the lane is done,
   * or no move was asked for).
   */
  private async write(
    options: { readonly moveToNextDue?: boolean; readonly stayIfDueWithinMs?: number } = {},
  ): Promise<'moved' | 'stayed' | 'written'> {
    const ended = this.hands.inPhase('ended');
    const writes: ItemWrite[] = [];
    for (const [itemKey, state] of ended) {
      writes.push(
        state.fence === undefined ? state.write : { ...state.write, fence: { held: state.fence } },
      );
      if (typeof state.write.dueAt === 'number') {
        this.nextDueAt = Math.min(this.nextDueAt, state.write.dueAt);
      }
      this.hands.set(itemKey, { phase: 'writing' });
    }
    let recorded;
    try {
      recorded = await this.dependencies.lanes.write(
        this.data.runId,
        this.data.lane,
        writes,
        ownedJobStep(this.job, this.token, options),
      );
    } finally {
      // Written, or lost with the write: either way out of this lane's hands (their due times
      // in the lane bring them back).
      for (const [itemKey] of ended) this.hands.release(itemKey);
    }
    for (const [index, [itemKey, state]] of ended.entries()) {
      const result = recorded.results[index];
      if (result?.stale === true) {
        this.staleStep(itemKey, 'what its step came to');
        continue;
      }
      if (state.after !== undefined) this.dependencies.crashPoints.reach(state.after);
      if (result?.record?.recorded === true && result.record.runFinished !== undefined) {
        this.context.logger.info(
          { status: result.record.runFinished, target: itemKey },
          'last item ended: run finished',
        );
      }
    }
    if (recorded.stepResult < 0) {
      throw new Error(
        `snapshot lane ${this.data.lane} of ${this.data.runId}: its records are made but its job could not be delayed (BullMQ code ${recorded.stepResult})`,
      );
    }
    return recorded.stepResult === 1 ? 'moved' : recorded.stepResult === 2 ? 'stayed' : 'written';
  }
}
