/** What to do with a fire that is due. */
export interface PlannedFire {
  readonly fireTime: Date;
  /** Enqueue a run, or record the fire as missed (too late even for its catch-up window). */
  readonly action: 'enqueue' | 'record-missed';
  /** `cron` when handled within the misfire grace, `catch-up` when later but within `catchUp`. */
  readonly trigger: 'cron' | 'catch-up';
  /** How late the fire is handled, in ms. */
  readonly lateByMs: number;
}

export interface FirePolicy {
  /** The definition's catch-up window (`schedule.catchUp`). */
  readonly catchUpMs: number;
  /** A fire handled at most this late is on time (`scheduler.misfireGraceMs`). */
  readonly misfireGraceMs: number;
  /** Missed fires beyond this many (the oldest) are counted but not recorded one by one. */
  readonly maxMissedRecorded: number;
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
  for (const fireTime of fires) {
    const lateByMs = Math.max(0, now.getTime() - fireTime.getTime());
    if (lateByMs > window) {
      missedTotal++;
      missed.push({ fireTime, action: 'record-missed', trigger: 'catch-up', lateByMs });
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
