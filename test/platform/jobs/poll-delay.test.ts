import { describe, expect, it } from 'vitest';
import { nextPollDelay } from '../../../src/platform/jobs/poll-delay.js';

const MINUTE = 60_000;
const base = { triggeredAt: 0, deadline: 6 * 60 * MINUTE, minMs: 5_000, maxMs: 120_000 };

describe('nextPollDelay', () => {
  it('polls at the minimum at first, then a quarter of the job age, up to the maximum', () => {
    expect(nextPollDelay({ ...base, now: 1_000 })).toBe(5_000);
    expect(nextPollDelay({ ...base, now: 2 * MINUTE })).toBe(30_000);
    expect(nextPollDelay({ ...base, now: 60 * MINUTE })).toBe(120_000);
  });

  it('polls sooner when the progress says the end is near', () => {
    // Running 40 minutes: the next read is at the end extrapolated from the progress (not
    // halfway to it: halving costs a read per halving), within the maximum (2 minutes here).
    const situation = { ...base, now: 41 * MINUTE, startedAt: MINUTE };
    expect(nextPollDelay({ ...situation, progress: 95 })).toBe(120_000); // 126 s to go
    expect(nextPollDelay({ ...situation, progress: 98 })).toBe(48_980);
    expect(nextPollDelay({ ...situation, progress: 99 })).toBe(24_242);
    // No progress, or a job that has not started: the age alone decides.
    expect(nextPollDelay({ ...situation, progress: 0 })).toBe(120_000);
    expect(nextPollDelay({ ...base, now: 41 * MINUTE, progress: 50 })).toBe(120_000);
  });

  it('never waits past the deadline, so a timeout is recorded when the wait runs out', () => {
    expect(nextPollDelay({ ...base, now: base.deadline - 3_000 })).toBe(3_000);
    expect(nextPollDelay({ ...base, now: base.deadline + 1 })).toBe(0);
  });
});
