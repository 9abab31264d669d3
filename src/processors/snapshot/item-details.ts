import type { ItemRecord } from '../../outcomes/outcome-records.js';

/** Facts kept in an item's `details` (scalars only). Rewritten whole on every update. */
export interface ItemDetails {
  /** The first time this item's trigger was about to be sent (ISO): reconciliation looks from here. */
  firstTriggerAttemptAt?: string;
  /** The latest trigger attempt whose answer is not recorded yet (ISO); absent once it is. */
  triggerAttemptAt?: string;
  /** Triggers sent for this item (more than 1 only after reconciliation found no trace). */
  triggersSent?: number;
  /** When the trigger's answer arrived (ISO). */
  triggeredAt?: string;
  /** How the platform job id was learnt: the trigger's answer, or the workload's events. */
  jobIdFrom?: 'trigger' | 'events' | 'outcome-record';
  statusUrl?: string;
  platformStatus?: string;
  progress?: number;
  snapshotId?: string;
  retentionSlaDomainId?: string | null;
}

/** The details of a snapshot item as recorded (none for a new item). */
export function detailsOf(item: ItemRecord | undefined): ItemDetails {
  return item?.details ?? {};
}

/** The details once the pending trigger attempt is answered (or provably did nothing). */
export function withoutPendingAttempt(details: ItemDetails): ItemDetails {
  const { triggerAttemptAt: _pending, ...rest } = details;
  return rest;
}

/** The details as the outcome store takes them: scalars only, absent fields left out. */
export function scalarDetails(
  details: ItemDetails,
): Record<string, string | number | boolean | null> {
  const result: Record<string, string | number | boolean | null> = {};
  for (const [key, value] of Object.entries(details)) {
    if (value !== undefined) result[key] = value as string | number | boolean | null;
  }
  return result;
}
