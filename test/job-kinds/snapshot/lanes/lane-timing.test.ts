import { describe, expect, it } from 'vitest';
import {
  LANE_TIMING,
  LaneTiming,
  type LaneMoment,
  type LaneTimingSettings,
} from '../../../../src/job-kinds/snapshot/lanes/lane-timing.js';

// Time is the subject here: every decision is asked at a clock value the test gives (ms since
// the wake began), and a few tests run the lane's loop on that clock, as snapshot-lane.ts does.

/** A lane of one run at 40 requests/s: it keeps 40 requests waiting at the gate. */
const share = { requestsPerSecond: 40, lanes: 1, pollMinMs: 5_000 };
const timing = new LaneTiming(share);
const withSettings = (settings: Partial<LaneTimingSettings>): LaneTiming =>
  new LaneTiming(share, { ...LANE_TIMING, ...settings });

/**
 * A lane at the start of its wake with nothing in hand and nothing known to be due. Unless said
 * otherwise, every item in flight waits at the gate, as on a platform that answers at once.
 */
const lane = (moment: Partial<LaneMoment> = {}): LaneMoment => ({
  wakeStartedAt: 0,
  lastWriteAt: 0,
  nextReadAt: Number.POSITIVE_INFINITY,
  nextDueAt: Number.POSITIVE_INFINITY,
  inFlight: 0,
  toWrite: 0,
  toTriggerAgain: 0,
  stopping: false,
  ...moment,
  atGate: moment.atGate ?? moment.inFlight ?? 0,
});

/**
 * The loop of a lane that always has `inFlight` items in flight, one of which ends every
 * `endEveryMs` (and is replaced): runs it for `forMs` and says how often it woke, how often it
 * wrote, and the longest an ended item waited for its write.
 */
function busyLane(
  policy: LaneTiming,
  { inFlight, endEveryMs, forMs }: { inFlight: number; endEveryMs: number; forMs: number },
): { wakes: number; writes: number; longestUnwrittenMs: number } {
  let now = 0;
  let lastWriteAt = 0;
  let nextEndAt = endEveryMs;
  const unwritten: number[] = [];
  let wakes = 0;
  let writes = 0;
  let longestUnwrittenMs = 0;
  for (;;) {
    const next = policy.next(lane({ inFlight, lastWriteAt, toWrite: unwritten.length }), now);
    if (next.kind === 'write') {
      writes++;
      for (const endedAt of unwritten.splice(0)) {
        longestUnwrittenMs = Math.max(longestUnwrittenMs, now - endedAt);
      }
      lastWriteAt = now;
      continue;
    }
    if (next.kind !== 'wait-for-an-end') throw new Error(`a busy lane did ${next.kind}`);
    // An end wakes the lane at once; else its timer does.
    now = Math.min(now + next.ms, nextEndAt);
    if (now > forMs) return { wakes, writes, longestUnwrittenMs };
    wakes++;
    if (now === nextEndAt) {
      unwritten.push(now);
      nextEndAt += endEveryMs;
    }
  }
}

describe("a snapshot lane's timing", () => {
  describe('the write interval (250 ms): fewer writes against later records', () => {
    it('records what ended at least every 250 ms while items are in flight, and at once when none is left', () => {
      expect(timing.next(lane({ inFlight: 5, toWrite: 3 }), 100)).toEqual({
        kind: 'wait-for-an-end',
        ms: 150,
      });
      expect(timing.next(lane({ inFlight: 5, toWrite: 3 }), 250)).toEqual({ kind: 'write' });
      // The last item in flight ended: nothing else to wait for, so no reason to wait.
      expect(timing.next(lane({ inFlight: 0, toWrite: 1 }), 10)).toEqual({ kind: 'write' });
    });

    it('writes a busy lane four times a second, each ended item within 250 ms; a 1 s interval writes once, a second late', () => {
      const busy = { inFlight: 40, endEveryMs: 20, forMs: 1_000 };
      expect(busyLane(timing, busy)).toMatchObject({ writes: 4, longestUnwrittenMs: 240 });
      expect(busyLane(withSettings({ writeEveryMs: 1_000 }), busy)).toMatchObject({
        writes: 1,
        longestUnwrittenMs: 980,
      });
    });
  });

  describe('waiting for items in flight', () => {
    it('does not spin: with nothing to write and no read due, it waits a whole write interval for an end, not 1 ms once the interval has passed', () => {
      // The write interval passed long ago (the last write was 10 s back).
      expect(timing.next(lane({ inFlight: 1 }), 10_000)).toEqual({
        kind: 'wait-for-an-end',
        ms: 250,
      });
      // One trigger the platform holds 2 s: the lane wakes a few times, not 2,000.
      const held = busyLane(timing, { inFlight: 1, endEveryMs: 2_000, forMs: 2_000 });
      expect(held.wakes).toBe(8);
    });

    it('takes items coming due on time while others are in flight, where waiting a whole interval took them up to 250 ms late', () => {
      // The spin's first fix waited a whole write interval here, and was reverted when chaos
      // scenario 7 failed with it (a worker killed at a crash point, its items due again at
      // their lease's end, their run not ended in time; BENCHMARKS.md).
      // A read due in 100 ms, and room to take what it finds: the lane wakes for it.
      expect(
        timing.next(lane({ inFlight: 1, nextReadAt: 1_100, lastWriteAt: 1_000 }), 1_000),
      ).toEqual({ kind: 'wait-for-an-end', ms: 100 });
      // Without room to take them (21 of 40 in flight), a due read is no reason to wake.
      expect(
        timing.next(lane({ inFlight: 21, nextReadAt: 1_100, lastWriteAt: 1_000 }), 1_000),
      ).toEqual({ kind: 'wait-for-an-end', ms: 250 });
      // Nor once the wake is over: the lane takes nothing new then.
      expect(
        timing.next(
          lane({ inFlight: 1, nextReadAt: 300_100, lastWriteAt: 300_000 }),
          LANE_TIMING.wakeMs,
        ),
      ).toEqual({ kind: 'wait-for-an-end', ms: 250 });
      // Whichever comes first, the write of what ended or the read.
      expect(
        timing.next(lane({ inFlight: 1, toWrite: 1, nextReadAt: 1_100, lastWriteAt: 900 }), 1_000),
      ).toEqual({ kind: 'wait-for-an-end', ms: 100 });
      expect(
        timing.next(lane({ inFlight: 1, toWrite: 1, nextReadAt: 1_100, lastWriteAt: 800 }), 1_000),
      ).toEqual({ kind: 'wait-for-an-end', ms: 50 });
    });
  });

  describe('the requests kept waiting at the gate (about a second of the rate, 8 to 500): the rate kept busy whatever the latency, against intents waiting unsent', () => {
    it("keeps the lane's share of a second of the platform's rate waiting at the gate", () => {
      expect(timing.waitingTarget).toBe(40);
      expect(new LaneTiming({ ...share, requestsPerSecond: 500, lanes: 2 }).waitingTarget).toBe(
        250,
      );
      expect(new LaneTiming({ ...share, requestsPerSecond: 50, lanes: 3 }).waitingTarget).toBe(17);
    });

    it('keeps at least 8, so a lane of a low rate does not wake for one item at a time, and at most 500', () => {
      expect(new LaneTiming({ ...share, requestsPerSecond: 50, lanes: 16 }).waitingTarget).toBe(8);
      expect(new LaneTiming({ ...share, requestsPerSecond: 2_000, lanes: 1 }).waitingTarget).toBe(
        500,
      );
    });

    it('takes more while the gate lacks them, however many wait for the platform: 56 answers outstanding at 1.4 s do not hold it back', () => {
      const due = { nextReadAt: 0 };
      // At 20 ms nearly everything in flight waits at the gate: no room.
      expect(timing.toRead(lane({ ...due, inFlight: 41, atGate: 40 }), 10)).toBeUndefined();
      // At 1.4 s, 56 more wait for their answers: the gate's line decides, not the total.
      expect(timing.toRead(lane({ ...due, inFlight: 96, atGate: 40 }), 10)).toBeUndefined();
      expect(timing.toRead(lane({ ...due, inFlight: 76, atGate: 20 }), 10)).toBe(20);
      // A lane never holds more than 2,000 in flight, whatever the gate lacks.
      expect(timing.toRead(lane({ ...due, inFlight: 1_980, atGate: 0 }), 10)).toBe(20);
      expect(timing.toRead(lane({ ...due, inFlight: 1_990, atGate: 0 }), 10)).toBeUndefined();
    });

    it('sends at the rate whatever the latency, where a fixed second of the rate in flight sent 18 a second at 2.2 s', () => {
      // A model of the lane's process: a gate at 40 requests/s (a burst of 10) in front of a
      // platform that answers each request after `latencyMs`; the lane asks toRead every 10 ms
      // with always more to take, and an item's step is one request.
      const sentPerSecond = (
        latencyMs: number,
        policy: (moment: LaneMoment) => number | undefined,
      ) => {
        let tokens = 10;
        let line = 0;
        const answersAt: number[] = [];
        let sent = 0;
        for (let now = 0; now < 60_000; now += 10) {
          tokens = Math.min(10, tokens + 0.4);
          while (answersAt.length > 0 && (answersAt[0] ?? Infinity) <= now) answersAt.shift();
          while (line > 0 && tokens >= 1) {
            tokens--;
            line--;
            sent++;
            answersAt.push(now + latencyMs);
          }
          const inFlight = line + answersAt.length;
          const room = policy(lane({ nextReadAt: 0, inFlight, atGate: line }));
          if (room !== undefined) line += room;
        }
        return sent / 60;
      };
      const lanePolicy = (moment: LaneMoment) => timing.toRead(moment, 10);
      // The former rule: a second of the rate in flight, counted whether waiting or answered.
      const secondInFlight = (moment: LaneMoment) =>
        40 - moment.inFlight >= 20 ? 40 - moment.inFlight : undefined;
      for (const latencyMs of [20, 300, 1_400, 2_500]) {
        expect(sentPerSecond(latencyMs, lanePolicy), `at ${latencyMs} ms`).toBeGreaterThan(39.5);
      }
      expect(sentPerSecond(2_200, secondInFlight)).toBeLessThan(19);
    });
  });

  describe('the room a read waits for (half the items in flight): fewer, fuller reads against a free slot left empty a while', () => {
    it('reads once half of its target is free at the gate, for as many as it has room for', () => {
      const due = { nextReadAt: 0 };
      expect(timing.toRead(lane({ ...due, inFlight: 21 }), 10)).toBeUndefined();
      expect(timing.toRead(lane({ ...due, inFlight: 20 }), 10)).toBe(20);
      expect(timing.toRead(lane({ ...due, inFlight: 0 }), 10)).toBe(40);
      // Room, but nothing due yet.
      expect(timing.toRead(lane({ nextReadAt: 500, inFlight: 0 }), 10)).toBeUndefined();
    });

    it('reads at once for items to trigger again, whatever the room', () => {
      expect(timing.toRead(lane({ inFlight: 40, toTriggerAgain: 1 }), 10)).toBe(0);
      expect(timing.toRead(lane({ inFlight: 45, toTriggerAgain: 1 }), 10)).toBe(0);
      expect(timing.toRead(lane({ inFlight: 30, toTriggerAgain: 1 }), 10)).toBe(10);
    });

    it('reads twice while 40 items waiting at the gate go one by one, where reading at every free place reads 40 times', () => {
      const reads = (policy: LaneTiming): number => {
        let count = 0;
        let inFlight = policy.waitingTarget;
        for (let ended = 1; ended <= policy.waitingTarget; ended++) {
          inFlight--;
          const room = policy.toRead(lane({ nextReadAt: 0, inFlight }), ended);
          if (room === undefined) continue;
          count++;
          inFlight += room; // the read fills the room it had
        }
        return count;
      };
      expect(reads(timing)).toBe(2);
      expect(reads(withSettings({ readWhenFree: 1 / 40 }))).toBe(40);
    });
  });

  describe('how far a read looks ahead (a quarter of the shortest poll, at most 1 s): one read for many against polls a little early', () => {
    it('takes the items due within a quarter of snapshotPoll.minMs, at most a second', () => {
      expect(timing.readAheadMs).toBe(1_000);
      expect(new LaneTiming({ ...share, pollMinMs: 400 }).readAheadMs).toBe(100);
    });
  });

  describe('the hold (2 s): round trips saved against a worker slot held', () => {
    it('with nothing in flight, waits in its slot for an item due within 2 s, then reads', () => {
      expect(timing.next(lane({ nextDueAt: 1_500, nextReadAt: 1_500 }), 0)).toEqual({
        kind: 'hold',
        ms: 1_500,
      });
      // A write of an ended item's new due time may make an item due sooner than the next read.
      expect(timing.next(lane({ nextDueAt: 700, nextReadAt: 1_500 }), 0)).toEqual({
        kind: 'hold',
        ms: 700,
      });
    });

    it('leaves the slot, moving to the delayed set, for an item due later', () => {
      expect(timing.next(lane({ nextDueAt: 2_500, nextReadAt: 2_500 }), 0)).toEqual({
        kind: 'leave',
      });
      expect(timing.next(lane(), 0)).toEqual({ kind: 'leave' });
    });

    it('a longer hold keeps the slot for that item too', () => {
      expect(
        withSettings({ holdMs: 5_000 }).next(lane({ nextDueAt: 2_500, nextReadAt: 2_500 }), 0),
      ).toEqual({ kind: 'hold', ms: 2_500 });
    });

    it('with nothing in flight and a read due now, goes round to read it rather than waiting', () => {
      expect(timing.next(lane({ nextReadAt: 0 }), 10)).toEqual({ kind: 'read' });
      expect(timing.next(lane({ toTriggerAgain: 2 }), 10)).toEqual({ kind: 'read' });
    });

    it("with nothing in flight, a read due and the gate's line full of another lane's requests, looks again a write interval later: going round at once spun without ever yielding", () => {
      const crowded = lane({ nextReadAt: 0, nextDueAt: 0, inFlight: 0, atGate: 30 });
      expect(timing.toRead(crowded, 10)).toBeUndefined();
      expect(timing.next(crowded, 10)).toEqual({ kind: 'hold', ms: 250 });
      // Its items to trigger again are read all the same (their intents need no room).
      expect(timing.next({ ...crowded, toTriggerAgain: 1 }, 10)).toEqual({ kind: 'read' });
    });

    it('never holds when shutting down, and leaves without asking to keep its job', () => {
      const stopping = lane({ nextDueAt: 1_500, nextReadAt: 1_500, stopping: true });
      expect(timing.next(stopping, 0)).toEqual({ kind: 'leave' });
      expect(timing.toRead(lane({ nextReadAt: 0, stopping: true }), 0)).toBeUndefined();
    });
  });

  describe('the wake (5 min): JIT-warm work in one process against another job waiting for the slot', () => {
    it('takes new items until five minutes after its wake began, then none', () => {
      const started = 1_000_000;
      const due = lane({ wakeStartedAt: started, nextReadAt: 0 });
      expect(timing.toRead(due, started + LANE_TIMING.wakeMs - 1)).toBe(40);
      expect(timing.toRead(due, started + LANE_TIMING.wakeMs)).toBeUndefined();
      expect(timing.toRead({ ...due, toTriggerAgain: 1 }, started + LANE_TIMING.wakeMs)).toBe(
        undefined,
      );
    });

    it('at its end, with an item due within the hold, leaves asking to keep its job (it moves only if another job waits for a slot or the queue is paused)', () => {
      const atEnd = LANE_TIMING.wakeMs;
      expect(timing.next(lane({ nextReadAt: 0 }), atEnd)).toEqual({
        kind: 'leave',
        stayIfDueWithinMs: 2_000,
      });
      expect(
        timing.next(lane({ nextDueAt: atEnd + 1_500, nextReadAt: atEnd + 1_500 }), atEnd),
      ).toEqual({
        kind: 'leave',
        stayIfDueWithinMs: 2_000,
      });
      expect(
        timing.next(lane({ nextDueAt: atEnd + 2_500, nextReadAt: atEnd + 2_500 }), atEnd),
      ).toEqual({
        kind: 'leave',
      });
    });

    it('never holds past its end: an item due after it is left to the next wake', () => {
      const now = LANE_TIMING.wakeMs - 1_000;
      expect(timing.next(lane({ nextDueAt: now + 500, nextReadAt: now + 500 }), now)).toEqual({
        kind: 'hold',
        ms: 500,
      });
      expect(timing.next(lane({ nextDueAt: now + 1_500, nextReadAt: now + 1_500 }), now)).toEqual({
        kind: 'leave',
        stayIfDueWithinMs: 2_000,
      });
    });

    it('offers its slot to another job once per wake: every 5 minutes, where a 30 s wake offers it ten times as often, each time a move that may take the lane to a cold process', () => {
      // A lane whose items come due every second for an hour, with nothing in flight between.
      const offers = (policy: LaneTiming): number => {
        let wakeStartedAt = 0;
        let count = 0;
        for (let now = 0; now <= 3_600_000; now += 1_000) {
          const next = policy.next(lane({ wakeStartedAt, nextReadAt: now, nextDueAt: now }), now);
          if (next.kind === 'leave') {
            count++;
            wakeStartedAt = now; // kept its job: a new wake
          }
        }
        return count;
      };
      expect(offers(timing)).toBe(12);
      expect(offers(withSettings({ wakeMs: 30_000 }))).toBe(120);
    });
  });
});
