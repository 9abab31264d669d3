import type { RunTrigger } from '../outcomes/outcome-status.js';

/**
 * The id of a run, which is also its BullMQ job id: the definition id and the fire time in ISO
 * 8601 basic format (`nightly-vms@20250330T010000Z`). A fire has the same id whoever handles it
 * and whenever (on time or caught up), so two replicas that both handle it add one job. Manual
 * runs get their own (`nightly-vms@20250330T101502.123Z-manual`), and so does a backfill of a
 * fire that was skipped or missed (`nightly-vms@20250330T010000Z-backfill`: the fire's own id
 * keeps the record of what happened then). Never contains `:` (BullMQ forbids it in job ids).
 */
export function runIdFor(definitionId: string, fireTime: Date, trigger: RunTrigger): string {
  const iso = fireTime.toISOString(); // 2025-03-30T01:00:00.000Z
  const date = iso.slice(0, 10).replace(/-/g, '');
  const time = iso.slice(11, 19).replace(/:/g, '');
  const millis = iso.slice(19, 23); // .000
  if (trigger === 'manual') return `${definitionId}@${date}T${time}${millis}Z-manual`;
  const id = `${definitionId}@${date}T${time}${millis === '.000' ? '' : millis}Z`;
  return trigger === 'backfill' ? `${id}-backfill` : id;
}

/** What a run id looks like (for validating job data). */
export const RUN_ID_PATTERN =
  /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?@\d{8}T\d{6}(?:\.\d{3})?Z(?:-manual|-backfill)?$/;

/**
 * A BullMQ job id for an item of a run (e.g. one workload's snapshot job): the run id and the
 * item key, with `:` (forbidden in job ids) and `%` percent-encoded so distinct keys stay
 * distinct.
 */
export function itemJobId(runId: string, itemKey: string): string {
  return `${runId}~${itemKey.replace(/%/g, '%25').replace(/:/g, '%3A')}`;
}
