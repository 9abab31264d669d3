/** What to do with a fire that is due. */
export interface PlannedFire {
  readonly fireTime: Date;
  /** Enqueue a run, or record the fire as missed (too late even for its catch-up window). */
  readonly action: 'enqueue' | 'record-missed';
  /** `cron` when handled within the misfire grace, `catch-up` when later but within `catchUp`. */
  readonly trigger: 'cron' | 'catch-up';
  /** How late the fire is handled, in ms: after its jitter when enqueued, after its time when missed. */
  readonly lateByMs: number;
  /** For a missed fire: which bound it missed, the catch-up window or the start deadline. */
  readonly missedBound?: 'catch-up' | 'start-deadline';
}

export interface FirePolicy {
  /** The definition's catch-up window (`schedule.catchUp`). */
  readonly catchUpMs: number;
  /** A fire handled at most this late is on time (`scheduler.misfireGraceMs`). */
  readonly misfireGraceMs: number;
  /** Missed fires beyond this many (the oldest) are counted but not recorded one by one. */
  readonly maxMissedRecorded: number;
  /** How much later than its time a fire is due (`schedule.jitter`); none by default. */
  readonly delayMs?: (fireTime: Date) => number;
  /** A fire handled more than this after its time is missed (`schedule.startDeadline`). */
  readonly startDeadlineMs?: number;
}

export interface FirePlan {
  readonly fires: readonly PlannedFire[];
  /** Missed fires left out of `fires` (beyond `maxMissedRecorded`). */
  readonly unrecordedMissed: number;
}

/**
 * Decides, at `now`, what each due fire (ascending, all at or before `now`) becomes: on time,
 * caught up, or missed. Pure, and streaming: a scheduler back after weeks of downtime on a
 * seconds-level schedule may pass millions of fires, of which only the most recent missed ones
 * (up to `maxMissedRecorded`) are kept.
 */
export function planDueFires(fires: Iterable<Date>, now: Date, policy: FirePolicy): FirePlan {
  const window = Math.max(policy.catchUpMs, policy.misfireGraceMs);
  const keep = policy.maxMissedRecorded;
  let missed: PlannedFire[] = [];
  let missedTotal = 0;
  const enqueue: PlannedFire[] = [];
  const deadline = policy.startDeadlineMs ?? Number.POSITIVE_INFINITY;
  for (const fireTime of fires) {
    const sinceFireMs = now.getTime() - fireTime.getTime();
    const lateByMs = Math.max(0, sinceFireMs - (policy.delayMs?.(fireTime) ?? 0));
    // The start deadline counts from the fire time, like Kubernetes' startingDeadlineSeconds.
    const missedBound =
      sinceFireMs > deadline ? 'start-deadline' : lateByMs > window ? 'catch-up' : undefined;
    if (missedBound !== undefined) {
      missedTotal++;
      missed.push({
        fireTime,
        action: 'record-missed',
        trigger: 'catch-up',
        lateByMs,
        missedBound,
      });
      // Drop the oldest in batches, not one by one: millions of fires may pass through here.
      if (missed.length > 2 * keep + 64) missed = missed.slice(missed.length - keep);
    } else {
      enqueue.push({
        fireTime,
        action: 'enqueue',
        trigger: lateByMs <= policy.misfireGraceMs ? 'cron' : 'catch-up',
        lateByMs,
      });
    }
  }
  const recorded = keep === 0 ? [] : missed.slice(-keep);
  return { fires: [...recorded, ...enqueue], unrecordedMissed: missedTotal - recorded.length };
}
