import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { setMaxListeners } from 'node:events';
import type { ItemRecord } from '../../../outcomes/outcome-records.js';
import { UnknownRunError } from '../../../outcomes/unknown-run-error.js';
import { backoffDelay } from '../../../queue/backoff.js';
import { LostJobError, ownedJobStep } from '../../../queue/delayed-move.js';
import { failureFacts } from '../../job-failure.js';
import { continueAfterShutdown, continueStepAt, lockToken } from '../../../queue/step-job.js';
import { SnapshotItemSteps, type ItemOutcome, type ItemStepContext } from '../item-step.js';
import type { SnapshotDependencies } from '../snapshot-dependencies.js';
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
 *    request gate, taking more as those in flight end;
 * 3. records what the steps came to, many items per script, at least every write interval;
 * 4. with nothing in flight and nothing due within its hold, or at the end of its wake, records
 *    the rest and moves itself, in the same script, to the delayed set until its earliest item
 *    is due; with no item left in it nor in the queue, it completes. At the end of a wake with
 *    items due soon and no other job waiting for a slot, it stays instead and carries on as a
 *    new wake.
 *
 * When it reads, writes, waits and leaves is {@link LaneTiming}'s to say (the wake, the write
 * interval, the hold, the items in flight, the room a read waits for, how far a read looks
 * ahead): the loop asks it and does what it says.
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
    if (signal !== undefined) setMaxListeners(LANE_TIMING.inFlight.max + 16, signal);
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
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Items whose step has ended and whose outcome waits for the next write. */
  private readonly pending = new Set<string>();
  /** Items this run leaves alone: changed under it since it read them. */
  private readonly skipped = new Set<string>();
  private readonly outcomes: ItemOutcome[] = [];
  /** Items whose earlier trigger left no trace: a new intent, then a trigger. */
  private readonly toTriggerAgain: ItemRecord[] = [];
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
      inFlight: this.inFlight.size,
      toWrite: this.outcomes.length,
      toTriggerAgain: this.toTriggerAgain.length,
      stopping: this.dependencies.stopping.aborted || this.context.signal?.aborted === true,
    };
  }

  /**
   * Reads up to `room` due items and takes them (one write: intents and leases), then starts
   * their steps. Returns when the lane may have more due items: now when the read was full, else
   * when its next item is due.
   */
  private async take(room: number): Promise<number> {
    const { lanes } = this.dependencies;
    const now = Date.now();
    const again = this.toTriggerAgain.splice(0);
    for (const item of again) this.pending.delete(item.itemKey);
    let due: ItemRecord[] = [];
    let nextReadAt = Number.POSITIVE_INFINITY;
    if (room > 0) {
      // Items due a little later are taken now too: one read serves them all.
      const slack = this.timing.readAheadMs;
      // Items in hand (in flight, waiting for a write, left alone) may come back due: ask for
      // as many more.
      const inHand = this.inFlight.size + this.pending.size + this.skipped.size;
      const read = await lanes.due(this.data.runId, this.data.lane, {
        upTo: now + slack,
        limit: room + inHand,
        fromQueue: room,
        leaseUntil: this.steps.leaseUntil(now),
      });
      if (read === undefined) throw new UnknownRunError(this.data.runId);
      for (const { itemKey, item } of read.items) {
        if (this.inFlight.has(itemKey) || this.pending.has(itemKey) || this.skipped.has(itemKey)) {
          continue;
        }
        if (item === undefined) {
          // In the lane without a record (a run trimmed mid-way): nothing to do for it.
          this.outcomes.push({ kind: 'write', write: { itemKey, dueAt: null } });
          this.pending.add(itemKey);
          continue;
        }
        due.push(item);
      }
      const full = read.items.length >= room + inHand || read.queued > 0;
      due = due.slice(0, room);
      this.nextDueAt = read.nextDueAt ?? Number.POSITIVE_INFINITY;
      nextReadAt = full ? now : this.nextDueAt;
    }
    if (due.length === 0 && again.length === 0) return nextReadAt;

    const writes: ItemWrite[] = [];
    const toTrigger: ItemRecord[] = [];
    const toStep: [ItemRecord, 'poll' | 'reconcile'][] = [];
    for (const item of [...again, ...due]) {
      const state = again.includes(item) ? 'trigger' : this.steps.stateOf(item);
      if (state === 'gone') {
        this.outcomes.push({ kind: 'write', write: { itemKey: item.itemKey, dueAt: null } });
        this.pending.add(item.itemKey);
      } else if (state === 'trigger') {
        writes.push(this.steps.intent(item, this.context, now));
        toTrigger.push(item);
      } else {
        writes.push({ itemKey: item.itemKey, dueAt: this.steps.leaseUntil(now) });
        toStep.push([item, state]);
      }
    }
    const taken = await lanes.write(
      this.data.runId,
      this.data.lane,
      writes,
      ownedJobStep(this.job, this.token),
    );
    // An intent is on record before its trigger is sent.
    for (const [index, write] of writes.entries()) {
      const result = taken.results[index];
      if (write.update === undefined || result === undefined || !result.recorded) continue;
      this.dependencies.crashPoints.reach('snapshot.after-intent');
    }
    for (const [index, write] of writes.entries()) {
      const result = taken.results[index];
      if (write.update === undefined) continue;
      if (result === undefined || !result.recorded) {
        // Its status changed since it was read: not this run's to trigger.
        this.skipped.add(write.itemKey);
        continue;
      }
      const item = result.item;
      this.start(item.itemKey, () => this.steps.trigger(item, this.context));
    }
    for (const [item, state] of toStep) {
      this.start(item.itemKey, () =>
        state === 'poll'
          ? this.steps.poll(item, this.context)
          : this.steps.reconcile(item, this.context),
      );
    }
    return nextReadAt;
  }

  /** Runs an item's step; what it comes to waits for the next write. */
  private start(itemKey: string, step: () => Promise<ItemOutcome>): void {
    const running = step()
      .then(
        (outcome) => {
          if (outcome.kind === 'trigger-again') this.toTriggerAgain.push(outcome.item);
          else this.outcomes.push(outcome);
          this.pending.add(itemKey);
        },
        (error: unknown) => {
          // A step's own failures are settled inside it; this is a bug or a lost Redis
          // connection: the item is left as it is, and due again after its lease.
          this.failures++;
          this.context.logger.error(
            { target: itemKey, ...failureFacts(error) },
            'a snapshot item step failed unexpectedly; it is taken up again later',
          );
        },
      )
      .finally(() => {
        this.inFlight.delete(itemKey);
        this.wakeUp?.();
      });
    this.inFlight.set(itemKey, running);
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
   * Records what the steps came to so far, in one script, while the job is still this worker's;
   * with `moveToNextDue`, moves the job in the same script (`ownedJobStep`). Returns what the
   * job's step came to: moved to the delayed set, stayed this run's, or neither (nothing left:
   * the lane is done, or no move was asked for).
   */
  private async write(
    options: { readonly moveToNextDue?: boolean; readonly stayIfDueWithinMs?: number } = {},
  ): Promise<'moved' | 'stayed' | 'written'> {
    const outcomes = this.outcomes.splice(0);
    const writes = outcomes.flatMap((outcome) => (outcome.kind === 'write' ? [outcome.write] : []));
    for (const write of writes) {
      this.pending.delete(write.itemKey);
      if (typeof write.dueAt === 'number') this.nextDueAt = Math.min(this.nextDueAt, write.dueAt);
    }
    const recorded = await this.dependencies.lanes.write(
      this.data.runId,
      this.data.lane,
      writes,
      ownedJobStep(this.job, this.token, options),
    );
    for (const outcome of outcomes) {
      if (outcome.kind === 'write' && outcome.after !== undefined) {
        this.dependencies.crashPoints.reach(outcome.after);
      }
    }
    for (const [index, result] of recorded.results.entries()) {
      if (result?.recorded === true && result.runFinished !== undefined) {
        this.context.logger.info(
          { status: result.runFinished, target: writes[index]?.itemKey },
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
