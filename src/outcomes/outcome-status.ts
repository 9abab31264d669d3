/**
 * The status of a run or of an item in it. `queued` and `running` are in progress; the rest are
 * final. `missed` is for runs only: a fire no scheduler handled in time.
 */
export const OUTCOME_STATUSES = [
  'queued',
  'running',
  'succeeded',
  'failed',
  'skipped',
  'timed-out',
  'canceled',
  'missed',
] as const;

export type OutcomeStatus = (typeof OUTCOME_STATUSES)[number];

/** Statuses an item can have (all but `missed`). */
export const ITEM_STATUSES = OUTCOME_STATUSES.filter(
  (status): status is Exclude<OutcomeStatus, 'missed'> => status !== 'missed',
);
export type ItemStatus = Exclude<OutcomeStatus, 'missed'>;

const ACTIVE_STATUSES: readonly OutcomeStatus[] = ['queued', 'running'];

export function isOutcomeStatus(value: unknown): value is OutcomeStatus {
  return typeof value === 'string' && (OUTCOME_STATUSES as readonly string[]).includes(value);
}

export function isActiveStatus(status: OutcomeStatus): boolean {
  return ACTIVE_STATUSES.includes(status);
}

/**
 * How a run came to be: its cron fire, a fire caught up at start-up (or by `paw backfill`),
 * `paw run`, or `paw backfill` running a time whose fire was skipped or missed.
 */
export const RUN_TRIGGERS = ['cron', 'catch-up', 'manual', 'backfill'] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];
