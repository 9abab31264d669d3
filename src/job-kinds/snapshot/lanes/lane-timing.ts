/**
 * The six settings of a snapshot lane's timing. Each trades one cost against another: the lane's
 * CPU and Redis round trips against how late a record, a read or another job's turn comes
 * (docs/worker.md, "The lane's timing"; test/job-kinds/snapshot/lanes/lane-timing.test.ts shows
 * what each decides and trades).
 */
export interface LaneTimingSettings {
  /**
   * How long a lane takes new items before it checks whether to give up its worker's slot: it
   * writes what it has and, if another job of the queue waits for a slot or the queue is paused,
   * moves itself to the delayed set; if not, it carries on (`ownedJobStep`'s stayIfDueWithinMs).
   * Long, because a lane that leaves first waits for its items in flight, and meanwhile sends
   * fewer requests than the rate allows, and its next run is usually another process's, whose
   * JIT has to warm up to the lane's code again (at 30 s, a night of 10,000 at 50/s cost 3.15 ms
   * of CPU per snapshot; at 5 minutes, 2.12 and 2.08: BENCHMARKS.md). Short enough that a paused
   * queue or another run's lane waiting for a worker slot gets its turn within minutes.
   */
  readonly wakeMs: number;
  /**
   * What the items in flight came to is recorded at least this often, one script for all of
   * them (at once when none is left in flight). Every write is a Redis round trip and a wake-up
   * of the process; an ended item waits for it before it can be taken again, so its next poll
   * may come up to this much later than its schedule says, and a crash loses up to this much of
   * answers (which are then reconciled or read again).
   */
  readonly writeEveryMs: number;
  /**
   * With nothing in flight, a lane whose next item is due within this long waits for it here
   * rather than moving to the delayed set and being fetched again (two round trips and BullMQ's
   * bookkeeping saved per wait); a longer wait frees the worker's slot.
   */
  readonly holdMs: number;
  /**
   * Requests a lane keeps waiting for their turn at the request gate: about a second of the
   * platform's rate, shared by the run's lanes (`platform.requestsPerSecond` is what all workers
   * together may send), within these bounds. The lane takes new items while fewer than this wait
   * there, however many are at the platform meanwhile: a platform that answers in 20 ms keeps
   * about one request of them, one that answers in 1.4 s about 56 at 40 requests a second, and
   * either way the gate always has the next requests in line, so the rate is used whatever the
   * latency, with nothing to tune. More would only wait longer at the gate, intents on record
   * and unsent; the floor keeps a lane of a low rate from waking for one item at a time.
   */
  readonly waiting: { readonly min: number; readonly max: number };
  /**
   * The most items one lane has in flight, whatever waits at the gate: a bound on what one
   * lane's process holds (at the highest share of the rate a lane carries, 250 requests a
   * second, this is 8 s of the platform's latency).
   */
  readonly inFlightMax: number;
  /**
   * A lane reads new items once at least this share of its waiting target is free (items to
   * trigger again are read at once): fewer, fuller reads, each a Redis round trip, while the
   * requests still in line keep the rate busy.
   */
  readonly readWhenFree: number;
  /**
   * A read takes the items due within this share of `worker.snapshotPoll.minMs` too, at most
   * `maxMs`: one read serves them all, and none of them is polled later than due, only earlier,
   * by less than a quarter of the shortest poll interval.
   */
  readonly readAhead: { readonly pollShare: number; readonly maxMs: number };
}

/** paw's lane timing (BENCHMARKS.md measures each of these against the nightly benchmark). */
export const LANE_TIMING: LaneTimingSettings = Object.freeze({
  wakeMs: 300_000,
  writeEveryMs: 250,
  holdMs: 2_000,
  waiting: Object.freeze({ min: 8, max: 500 }),
  inFlightMax: 2_000,
  readWhenFree: 1 / 2,
  readAhead: Object.freeze({ pollShare: 1 / 4, maxMs: 1_000 }),
});

/** What the lane's rate and polling are: the lane's share of both. */
export interface LaneShare {
  /** The platform's rate, for all workers together (`platform.requestsPerSecond`). */
  readonly requestsPerSecond: number;
  /** How many lanes the run has: they share the rate. */
  readonly lanes: number;
  /** The shortest pause between two status reads (`worker.snapshotPoll.minMs`). */
  readonly pollMinMs: number;
}

/** What a lane's loop knows, at one moment, that its timing depends on (times in epoch ms). */
export interface LaneMoment {
  /** When this wake began: the job's run, or the wake's end at which the lane kept its job. */
  readonly wakeStartedAt: number;
  readonly lastWriteAt: number;
  /** When the lane may have more due items to read (0: now). */
  readonly nextReadAt: number;
  /** When the lane's earliest item not in hand is due (Infinity: none). */
  readonly nextDueAt: number;
  /** Items whose step runs (waiting at the gate, or for the platform's answer). */
  readonly inFlight: number;
  /** Requests of this process waiting for their turn at the request gate. */
  readonly atGate: number;
  /** Ended items whose outcome waits for the next write. */
  readonly toWrite: number;
  /** Items whose earlier trigger left no trace, to trigger again. */
  readonly toTriggerAgain: number;
  /** The worker is shutting down or the job's signal fired: the lane takes nothing new. */
  readonly stopping: boolean;
}

/** What the lane does next, once it has read (or not). */
export type LaneStep =
  /** Record what ended. */
  | { readonly kind: 'write' }
  /** Wait for an item in flight to end, at most `ms`. */
  | { readonly kind: 'wait-for-an-end'; readonly ms: number }
  /** Nothing in flight and more to read now: go round and read it. */
  | { readonly kind: 'read' }
  /** Nothing in flight, an item due soon: wait `ms` for it, in this worker's slot, then read. */
  | { readonly kind: 'hold'; readonly ms: number }
  /**
   * Record the rest and move to the delayed set until the lane is next due (or complete, with
   * nothing left); with `stayIfDueWithinMs`, keep the job instead if it is due within that long
   * and no other job waits for a slot.
   */
  | { readonly kind: 'leave'; readonly stayIfDueWithinMs?: number };

/**
 * When a snapshot lane reads, writes, waits and leaves (src/job-kinds/snapshot/lanes/
 * snapshot-lane.ts asks it, twice a turn of its loop: whether to read, then what next). Pure:
 * it decides from the lane's moment and the clock it is given, and keeps no state.
 */
export class LaneTiming {
  /** Requests the lane keeps waiting at the gate (see {@link LaneTimingSettings.waiting}). */
  readonly waitingTarget: number;
  /** How much later than now a read's items may be due (see {@link LaneTimingSettings.readAhead}). */
  readonly readAheadMs: number;

  constructor(
    share: LaneShare,
    private readonly settings: LaneTimingSettings = LANE_TIMING,
  ) {
    const rateShare = Math.ceil(share.requestsPerSecond / share.lanes);
    this.waitingTarget = Math.min(settings.waiting.max, Math.max(settings.waiting.min, rateShare));
    this.readAheadMs = Math.min(
      share.pollMinMs * settings.readAhead.pollShare,
      settings.readAhead.maxMs,
    );
  }

  /**
   * How many new items to read now, or undefined for no read. A read may have room for none
   * (0) when it is for the items to trigger again alone.
   */
  toRead(lane: LaneMoment, now: number): number | undefined {
    if (!this.taking(lane, now)) return undefined;
    if (lane.toTriggerAgain > 0 || (this.hasRoomToRead(lane) && now >= lane.nextReadAt)) {
      return Math.max(0, this.room(lane));
    }
    return undefined;
  }

  /** What the lane does next (after {@link toRead}'s read, if any). */
  next(lane: LaneMoment, now: number): LaneStep {
    const idle = lane.inFlight === 0;
    const sinceWrite = now - lane.lastWriteAt;
    if (lane.toWrite > 0 && (idle || sinceWrite >= this.settings.writeEveryMs)) {
      return { kind: 'write' };
    }
    const taking = this.taking(lane, now);
    if (!idle) {
      // An item's end wakes the lane at once; the timer is for what else comes due: the write
      // of what has ended, or the next read while there is room to take what it finds. Waiting
      // for what was left of the write interval with nothing to write (1 ms once it had passed)
      // woke the lane every millisecond until the next end; waiting a whole interval with a
      // read due took the items coming due (a dead worker's, at their lease's end) late.
      const untilWrite =
        lane.toWrite > 0 ? this.settings.writeEveryMs - sinceWrite : this.settings.writeEveryMs;
      const untilRead =
        taking && this.hasRoomToRead(lane) ? lane.nextReadAt - now : this.settings.writeEveryMs;
      return { kind: 'wait-for-an-end', ms: Math.max(1, Math.min(untilWrite, untilRead)) };
    }
    const canRead = taking && this.hasRoomToRead(lane);
    if (taking && (lane.toTriggerAgain > 0 || (lane.nextReadAt <= now && canRead))) {
      return { kind: 'read' };
    }
    // Without room, the gate's line is full of this process's other requests (another lane's):
    // the lane looks again a write interval later rather than go round without waiting.
    const dueAt = canRead
      ? Math.min(lane.nextDueAt, lane.nextReadAt)
      : Math.max(Math.min(lane.nextDueAt, lane.nextReadAt), now + this.settings.writeEveryMs);
    const wait = dueAt - now;
    if (
      taking &&
      wait <= this.settings.holdMs &&
      dueAt - lane.wakeStartedAt < this.settings.wakeMs
    ) {
      return { kind: 'hold', ms: Math.max(0, wait) };
    }
    // At the end of a wake with an item due soon, the lane keeps its job unless another job
    // waits for a slot or the queue is paused; shutting down, it always leaves.
    return !lane.stopping && wait <= this.settings.holdMs
      ? { kind: 'leave', stayIfDueWithinMs: this.settings.holdMs }
      : { kind: 'leave' };
  }

  /** Whether the lane still takes new items: within its wake, and not shutting down. */
  private taking(lane: LaneMoment, now: number): boolean {
    return now - lane.wakeStartedAt < this.settings.wakeMs && !lane.stopping;
  }

  /** How many more items the lane may take: what the gate's line lacks, within its cap. */
  private room(lane: LaneMoment): number {
    return Math.min(this.waitingTarget - lane.atGate, this.settings.inFlightMax - lane.inFlight);
  }

  private hasRoomToRead(lane: LaneMoment): boolean {
    return this.room(lane) >= this.waitingTarget * this.settings.readWhenFree;
  }
}
