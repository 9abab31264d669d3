import type { ItemCounts, ItemRecord, RunRecord } from '../../outcomes/outcome-records.js';

/*
 * How outcomes read as text, on the dashboard, in the demo's summary and in the pictures' labels.
 */

/** Why a run ended as it did, in one line. */
export function runReason(run: RunRecord): string | undefined {
  const error = [run.errorCode, run.errorMessage].filter((part) => part !== undefined).join(': ');
  return (
    [run.reason, error === '' ? undefined : error]
      .filter((part) => part !== undefined)
      .join(' — ') || undefined
  );
}

/** Why an item ended as it did, in one line. */
export function itemReason(item: ItemRecord): string | undefined {
  const error = [item.errorCode, item.errorMessage].filter((part) => part !== undefined).join(': ');
  return (
    [error === '' ? undefined : error, item.reason]
      .filter((part) => part !== undefined)
      .join(' — ') || undefined
  );
}

/** "198 succeeded · 2 failed" (statuses with a count only). */
export function countsText(counts: ItemCounts): string {
  const parts: [number, string][] = [
    [counts.succeeded, 'succeeded'],
    [counts.failed, 'failed'],
    [counts.timedOut, 'timed out'],
    [counts.canceled, 'canceled'],
    [counts.skipped, 'skipped'],
    [counts.running, 'running'],
    [counts.queued, 'queued'],
  ];
  const text = parts
    .filter(([count]) => count > 0)
    .map(([count, label]) => `${count} ${label}`)
    .join(' · ');
  return text === '' ? 'no items' : text;
}

/** A duration as a person reads it at a glance: `45s`, `13m`, `3h`. */
export function briefDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.round(seconds / 60);
  return minutes < 120 ? `${minutes}m` : `${Math.round(minutes / 60)}h`;
}
