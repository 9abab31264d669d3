import type { JobDefinition } from '../definitions/job-definition.js';
import { isActiveStatus } from '../outcomes/outcome-status.js';
import type { RunStore } from '../outcomes/run-store.js';
import type { FireResult, RunFirer } from './run-firer.js';

/**
 * How a backfill's runs share time: `queue`, one after another, each after the one before it
 * (and the first after a run of the definition still in progress); `allow`, all at once.
 */
export const BACKFILL_OVERLAPS = ['queue', 'allow'] as const;
export type BackfillOverlap = (typeof BACKFILL_OVERLAPS)[number];

/** A definition's overlap policy, as a backfill applies it: `skip` asks for one run at a time. */
export function backfillOverlapOf(definition: JobDefinition): BackfillOverlap {
  return definition.schedule.overlap === 'allow' ? 'allow' : 'queue';
}

/**
 * Fires each of `fireTimes` (in order) for a backfill, which is the operator asking for those
 * times: none is skipped because an earlier one is still queued (under `queue` each goes after
 * it instead), and a time whose fire was skipped or missed has had no run, so it gets one of its
 * own (trigger `backfill`) next to the record of what happened then, unless a calendar or a
 * pause holds it back now. A time that has a run (or that a live scheduler fires at the same
 * moment) is reported as existing, never run twice. Calendars and pauses apply as to a
 * scheduled fire.
 */
export async function backfillTimes(
  context: { readonly firer: RunFirer; readonly runs: RunStore },
  definition: JobDefinition,
  fireTimes: readonly Date[],
  overlap: BackfillOverlap,
  onFired?: (count: number) => void,
): Promise<{ fireTime: string; result: FireResult }[]> {
  const { firer, runs } = context;
  // The first goes after the run of the definition in progress, if any.
  let after =
    overlap === 'queue' && fireTimes.length > 0
      ? (await runs.activeBefore(definition.id, new Date()))?.runId
      : undefined;
  const fired: { fireTime: string; result: FireResult }[] = [];
  for (const fireTime of fireTimes) {
    const options = { ignoreOverlap: true, ...(after === undefined ? {} : { after }) };
    let result = await firer.fire(definition, fireTime, 'catch-up', options);
    const hadNoRun = result.result === 'exists' && ['skipped', 'missed'].includes(result.status);
    // A time a calendar (or a pause) holds back now would only be recorded as skipped again.
    if (hadNoRun && (await firer.heldBack(definition, fireTime)) === undefined) {
      result = await firer.fire(definition, fireTime, 'backfill', options);
    }
    if (overlap === 'queue' && isActiveStatus(result.status)) after = result.runId;
    fired.push({ fireTime: fireTime.toISOString(), result });
    onFired?.(fired.length);
  }
  return fired;
}
