import type { ItemUpdate } from '../../outcomes/outcome-records.js';
import { isActiveStatus } from '../../outcomes/outcome-status.js';
import type { ItemStore } from '../../outcomes/item-store.js';
import type { WindowTarget } from './window-target.js';

/** What a window does to a target; each is an item of the run. */
export type WindowAction = 'pause' | 'resume';

/** The item key of a target's pause or resume: `<slaDomainId>/<clusterId>/pause`. */
export function windowItemKey(target: WindowTarget, action: WindowAction): string {
  return `${target.slaDomainId}/${target.clusterId}/${action}`;
}

/** The fields every item about `target` carries. */
export function targetFields(target: WindowTarget, action: WindowAction) {
  return {
    target: target.slaDomainId,
    targetName: `${target.slaDomainName} on ${target.clusterName}`,
    targetType: 'SLA_DOMAIN',
    action,
    details: {
      slaDomainName: target.slaDomainName,
      clusterId: target.clusterId,
      clusterName: target.clusterName,
    },
  } as const;
}

/**
 * Records an item unless it is already final: a step repeated after a crash, or a pause retried
 * after its window's resume already ran, must not turn a finished item back into a pending one
 * or rewrite why it ended. Callers hold the SLA Domain's lease, so the read and the write are
 * not interleaved with the other job of the same window.
 */
export async function recordUnlessFinal(
  items: ItemStore,
  runId: string,
  itemKey: string,
  update: ItemUpdate,
): Promise<boolean> {
  const existing = await items.get(runId, itemKey);
  if (existing !== undefined && !isActiveStatus(existing.status)) return false;
  await items.record(runId, itemKey, update);
  return true;
}
