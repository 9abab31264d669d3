import type { ItemRecord, RunRecord } from '../../outcomes/outcome-records.js';
import { printable } from '../../shared/printable.js';

/** One item of a run that did not succeed, as a notification lists it. */
interface SummaryItem {
  readonly itemKey: string;
  readonly status: string;
  readonly target?: string;
  readonly targetName?: string;
  readonly targetType?: string;
  readonly action?: string;
  readonly platformJobId?: string;
  readonly errorCode?: string;
  readonly errorMessage?: string;
  readonly reason?: string;
}

/**
 * The JSON body paw posts to a webhook when a run ends (`format: json`). Stable field names: a
 * receiver may rely on them. `deliveryId` is the same for every retry of one notification, so a
 * receiver can drop duplicates.
 */
export interface RunSummary {
  readonly source: 'paw';
  readonly event: 'run.ended';
  readonly deliveryId: string;
  readonly run: {
    readonly runId: string;
    readonly definitionId: string;
    readonly kind: string;
    readonly status: string;
    readonly trigger: string;
    readonly fireTime: string;
    readonly startedAt?: string;
    readonly finishedAt?: string;
    readonly attempts: number;
    readonly reason?: string;
    readonly errorCode?: string;
    readonly errorMessage?: string;
    readonly counts: RunRecord['counts'];
  };
  /** Items that failed, timed out or were canceled, up to `notifications.maxItemsListed`. */
  readonly failures: readonly SummaryItem[];
  /** How many such items are not listed. */
  readonly failuresNotListed: number;
}

/** Builds the summary of `run` from its problem items (already limited by the caller). */
export function buildRunSummary(
  run: RunRecord,
  failures: readonly ItemRecord[],
  failureTotal: number,
): RunSummary {
  return {
    source: 'paw',
    event: 'run.ended',
    deliveryId: `paw-run-${run.runId}`,
    run: {
      runId: run.runId,
      definitionId: run.definitionId,
      kind: run.kind,
      status: run.status,
      trigger: run.trigger,
      fireTime: run.fireTime,
      ...optional('startedAt', run.startedAt),
      ...optional('finishedAt', run.finishedAt),
      attempts: run.attempts,
      ...optional('reason', run.reason),
      ...optional('errorCode', run.errorCode),
      ...optional('errorMessage', run.errorMessage),
      counts: run.counts,
    },
    failures: failures.map((item) => ({
      itemKey: item.itemKey,
      status: item.status,
      ...optional('target', item.target),
      ...optional('targetName', item.targetName),
      ...optional('targetType', item.targetType),
      ...optional('action', item.action),
      ...optional('platformJobId', item.platformJobId),
      ...optional('errorCode', item.errorCode),
      ...optional('errorMessage', item.errorMessage),
      ...optional('reason', item.reason),
    })),
    failuresNotListed: Math.max(0, failureTotal - failures.length),
  };
}

const STATUS_EMOJI: Record<string, string> = {
  succeeded: ':white_check_mark:',
  skipped: ':fast_forward:',
  canceled: ':warning:',
};

/** The Slack-compatible body (`format: slack`): `{ "text": ... }` in Slack's mrkdwn. */
export function slackMessage(summary: RunSummary): { text: string } {
  const { run } = summary;
  const c = run.counts;
  const tally = [
    [c.succeeded, 'succeeded'],
    [c.failed, 'failed'],
    [c.timedOut, 'timed out'],
    [c.canceled, 'canceled'],
    [c.skipped, 'skipped'],
  ]
    .filter(([count]) => Number(count) > 0)
    .map(([count, label]) => `${count} ${label}`)
    .join(', ');
  const lines = [
    `${STATUS_EMOJI[run.status] ?? ':x:'} *paw: ${slackEscape(run.definitionId)} ${run.status}*` +
      (c.total > 0 ? ` (${c.total} item${c.total === 1 ? '' : 's'}: ${tally})` : ''),
    `Run \`${slackEscape(run.runId)}\` (${run.kind}, ${run.trigger}) fired ${run.fireTime}`,
  ];
  const why = [run.reason, [run.errorCode, run.errorMessage].filter(Boolean).join(': ')]
    .filter((part) => part !== undefined && part !== '')
    .join(' — ');
  if (why !== '') lines.push(`> ${slackEscape(why)}`);
  for (const item of summary.failures) {
    const name = item.targetName ?? item.target ?? item.itemKey;
    const reason = [[item.errorCode, item.errorMessage].filter(Boolean).join(': '), item.reason]
      .filter((part) => part !== undefined && part !== '')
      .join(' — ');
    lines.push(
      `• ${slackEscape(name)}: ${item.status}${reason === '' ? '' : ` — ${slackEscape(reason)}`}`,
    );
  }
  if (summary.failuresNotListed > 0) lines.push(`…and ${summary.failuresNotListed} more`);
  return { text: lines.join('\n') };
}

/**
 * Text from outside (a workload's name, a platform's message) made safe for a Slack message: a
 * line feed would start a line of its own (a forged one), and control, bidi and zero-width
 * characters are shown as their escapes (shared/printable.ts); Slack reads `&`, `<` and `>` as
 * markup (links, mentions), so they become entities.
 */
export function slackEscape(text: string): string {
  return printable(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
