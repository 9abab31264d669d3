/** What the next poll of a snapshot job is decided from. Times are epoch ms. */
export interface PollSituation {
  readonly now: number;
  /** When the trigger was answered. */
  readonly triggeredAt: number;
  /** When the platform says the job started running, if it has. */
  readonly startedAt?: number | undefined;
  /** The job's progress (0–100), if the platform gives one. */
  readonly progress?: number | undefined;
  /** When the wait runs out (`triggeredAt + maxWait`). */
  readonly deadline: number;
  /** `worker.snapshotPoll`: the worker and `paw snapshot --wait` poll alike. */
  readonly minMs: number;
  readonly maxMs: number;
}

/**
 * How long to wait before reading a snapshot job's status again. Short at first, then a quarter
 * of the job's age (a job that has run an hour is not going to end in the next five seconds),
 * bounded by `minMs` and `maxMs`. When progress says the end comes sooner (the time still to go,
 * extrapolated from the progress so far), it reads at that end instead, not before `minMs`. Never past
 * the deadline: the last poll happens when the wait runs out, so a timeout is recorded on time.
 */
export function nextPollDelay(situation: PollSituation): number {
  const { now, minMs, maxMs } = situation;
  const age = Math.max(0, now - situation.triggeredAt);
  let delay = clamp(age / 4, minMs, maxMs);

  const { progress, startedAt } = situation;
  if (progress !== undefined && progress > 0 && progress < 100 && startedAt !== undefined) {
    // The end, extrapolated from the progress so far: read at that estimate when it comes
    // before the age rule's read. Not at half of it, again and again: halving the distance
    // costs about log2(remaining / minMs) reads per job, and on a big night those reads are
    // requests the rate limit no longer has for triggers. A job not done by then has little
    // left: minMs steps from there.
    const running = Math.max(0, now - startedAt);
    const remaining = (running * (100 - progress)) / progress;
    delay = Math.min(delay, Math.max(minMs, remaining));
  }

  const untilDeadline = situation.deadline - now;
  return Math.max(0, Math.round(Math.min(delay, untilDeadline)));
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}
