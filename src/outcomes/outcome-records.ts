import type { JobKind } from '../definitions/job-definition.js';
import {
  ITEM_STATUSES,
  isOutcomeStatus,
  type ItemStatus,
  type OutcomeStatus,
  type RunTrigger,
} from './outcome-status.js';

/** How many items of a run are in each status. */
export interface ItemCounts {
  readonly total: number;
  readonly queued: number;
  readonly running: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly skipped: number;
  readonly timedOut: number;
  readonly canceled: number;
}

/** One run of a definition: a fire (or a manual run) and what came of it. Times are ISO 8601. */
export interface RunRecord {
  readonly runId: string;
  readonly definitionId: string;
  readonly kind: JobKind;
  readonly fireTime: string;
  readonly trigger: RunTrigger;
  readonly status: OutcomeStatus;
  readonly createdAt: string;
  readonly startedAt?: string;
  readonly finishedAt?: string;
  /** How many times a worker started the run (BullMQ attempts). */
  readonly attempts: number;
  /** Why the run was skipped or missed. */
  readonly reason?: string;
  readonly errorCode?: string;
  readonly errorMessage?: string;
  readonly counts: ItemCounts;
  /**
   * Whether its end is to be notified (its definition had `notify` when it fired). A run recorded
   * before paw kept this says true: its end is offered to the notifier, which decides.
   */
  readonly notify: boolean;
}

/**
 * One item of a run: a workload's snapshot, an SLA Domain's pause or resume, a rotation.
 * Times are ISO 8601.
 */
export interface ItemRecord {
  readonly runId: string;
  /** Stable within the run (e.g. the workload id): recording it again updates it. */
  readonly itemKey: string;
  readonly status: ItemStatus;
  /** The platform object it is about (workload, SLA Domain or service-account id). */
  readonly target?: string;
  readonly targetName?: string;
  readonly targetType?: string;
  /** What was done to the target (`snapshot`, `pause`, `resume`, `rotate`). */
  readonly action?: string;
  readonly attempts?: number;
  /** The platform's id for the job it started (a snapshot job id). */
  readonly platformJobId?: string;
  readonly startedAt?: string;
  readonly finishedAt?: string;
  readonly updatedAt: string;
  readonly errorCode?: string;
  readonly errorMessage?: string;
  /** Why it was skipped, or any other note for the reader. */
  readonly reason?: string;
  /** Small extra facts (e.g. the snapshot id); scalars only. */
  readonly details?: Readonly<Record<string, string | number | boolean | null>>;
}

/**
 * A change to an item. Absent fields are left as they are; `null` clears a field (for example
 * the error of a failed attempt once a retry succeeds).
 */
export interface ItemUpdate {
  readonly status: ItemStatus;
  readonly target?: string | null;
  readonly targetName?: string | null;
  readonly targetType?: string | null;
  readonly action?: string | null;
  readonly attempts?: number | null;
  readonly platformJobId?: string | null;
  readonly startedAt?: Date | string | null;
  readonly finishedAt?: Date | string | null;
  readonly errorCode?: string | null;
  readonly errorMessage?: string | null;
  readonly reason?: string | null;
  readonly details?: Readonly<Record<string, string | number | boolean | null>> | null;
}

/** An item with the run it belongs to, as listed and exported. */
export interface ItemRow extends ItemRecord {
  readonly definitionId: string;
  readonly kind: JobKind;
  readonly fireTime: string;
  readonly trigger: RunTrigger;
}

/** Error messages are stored clipped: the store is a record, not a log. */
export const MAX_ERROR_MESSAGE_LENGTH = 1000;

/**
 * Compact field names of an item as stored (JSON in a hash field). Thousands of items per run
 * and months of runs make the names' length matter; the store's API always uses the long ones.
 */
const STORED_NAMES = {
  status: 'st',
  target: 'tg',
  targetName: 'tn',
  targetType: 'tt',
  action: 'ac',
  attempts: 'at',
  platformJobId: 'pj',
  startedAt: 'sa',
  finishedAt: 'fa',
  updatedAt: 'ua',
  errorCode: 'ec',
  errorMessage: 'em',
  reason: 'rs',
  details: 'dt',
} as const;

type StoredName = (typeof STORED_NAMES)[keyof typeof STORED_NAMES];

/**
 * Compact names of the details the job kinds write (src/job-kinds/snapshot/item-details.ts,
 * src/job-kinds/sla-window/window-items.ts, src/job-kinds/rotate-secret): a night of 10,000
 * snapshot items repeats each name 10,000 times. A name not listed is stored as it is, or behind
 * `~` when it would read as a compact name (see {@link storedDetailName}).
 */
const STORED_DETAIL_NAMES: Readonly<Record<string, string>> = {
  clusterId: 'c',
  firstTriggerAttemptAt: 'f',
  triggerAttemptAt: 'a',
  triggersSent: 'n',
  triggeredAt: 't',
  jobIdFrom: 'j',
  trackedVia: 'v',
  statusUrl: 'u',
  onDemandSnapshot: 'o',
  activityId: 'i',
  activitySince: 's',
  platformStatus: 'p',
  progress: 'g',
  snapshotId: 'id',
  retentionSlaDomainId: 'r',
  readFailures: 'x',
  slaDomainName: 'sn',
  clusterName: 'cn',
};

const DETAIL_NAMES_OF_STORED = new Map(
  Object.entries(STORED_DETAIL_NAMES).map(([name, stored]) => [stored, name]),
);

/**
 * The details that hold a time as ISO 8601: stored as epoch ms (13 digits instead of a
 * 26-character string) when the string is exactly what `toISOString` writes, so it reads back
 * the same.
 */
const TIME_DETAILS: ReadonlySet<string> = new Set([
  'firstTriggerAttemptAt',
  'triggerAttemptAt',
  'triggeredAt',
  'activitySince',
]);

/**
 * Stands for the item's key inside a stored string: a snapshot's platform job id and its status
 * link both hold the workload id, which is the item's key. NUL appears in no key, name or link;
 * a NUL of the value itself is stored doubled.
 */
const ITEM_KEY_MARK = '\u0000';

/**
 * The top-level fields whose strings may hold {@link ITEM_KEY_MARK}. Of the scripts, only the
 * coverage index reads one (the reason), through `pawUnmarkItemKey` in `lua/includes/storedItem.lua`.
 */
const MARKED_FIELDS: ReadonlySet<string> = new Set(['platformJobId', 'errorMessage', 'reason']);

function markItemKey(value: string, itemKey: string): string {
  return value
    .split(itemKey)
    .map((part) => part.replaceAll(ITEM_KEY_MARK, ITEM_KEY_MARK + ITEM_KEY_MARK))
    .join(ITEM_KEY_MARK);
}

function unmarkItemKey(value: string, itemKey: string): string {
  if (!value.includes(ITEM_KEY_MARK)) return value;
  let result = '';
  for (let index = 0; index < value.length; index++) {
    const char = value[index] ?? '';
    if (char !== ITEM_KEY_MARK) result += char;
    else if (value[index + 1] === ITEM_KEY_MARK) {
      result += ITEM_KEY_MARK;
      index++;
    } else result += itemKey;
  }
  return result;
}

/** A detail's name as stored: its compact name, or its own (behind `~` if it would read as one). */
function storedDetailName(name: string): string {
  const stored = STORED_DETAIL_NAMES[name];
  if (stored !== undefined) return stored;
  return DETAIL_NAMES_OF_STORED.has(name) || name.startsWith('~') ? `~${name}` : name;
}

function storedDetails(
  details: Readonly<Record<string, string | number | boolean | null>>,
  itemKey: string,
): Record<string, string | number | boolean | null> {
  const stored: Record<string, string | number | boolean | null> = {};
  for (const [name, value] of Object.entries(details)) {
    let kept = value;
    if (typeof value === 'string') {
      const ms = TIME_DETAILS.has(name) ? Date.parse(value) : NaN;
      kept =
        Number.isFinite(ms) && new Date(ms).toISOString() === value
          ? ms
          : markItemKey(value, itemKey);
    }
    stored[storedDetailName(name)] = kept;
  }
  return stored;
}

function detailsFromStored(
  stored: Readonly<Record<string, unknown>>,
  itemKey: string,
): Record<string, unknown> {
  const details: Record<string, unknown> = {};
  const compact = new Set<string>();
  for (const [storedName, value] of Object.entries(stored)) {
    const known = DETAIL_NAMES_OF_STORED.get(storedName);
    const name = known ?? (storedName.startsWith('~') ? storedName.slice(1) : storedName);
    // A record written before details had compact names, and merged into since, may hold both
    // names of a detail: the compact one is the newer.
    if (known === undefined && compact.has(name)) continue;
    if (known !== undefined) compact.add(name);
    if (typeof value === 'number' && TIME_DETAILS.has(name))
      details[name] = new Date(value).toISOString();
    else details[name] = typeof value === 'string' ? unmarkItemKey(value, itemKey) : value;
  }
  return details;
}

/**
 * The stored JSON patch of an update of item `itemKey`: compact names, times as epoch ms, `null`
 * to clear, a target that is the item's key as `true` (a workload's snapshot: the common case),
 * the item's key inside other strings as {@link ITEM_KEY_MARK}.
 */
export function storedPatch(update: ItemUpdate, itemKey: string): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const [field, stored] of Object.entries(STORED_NAMES)) {
    if (field === 'updatedAt') continue;
    const value = (update as unknown as Record<string, unknown>)[field];
    if (value === undefined) continue;
    if (value === null) patch[stored] = null;
    else if (field === 'startedAt' || field === 'finishedAt') patch[stored] = toMs(value);
    else if (field === 'target' && value === itemKey) patch[stored] = true;
    else if (field === 'details')
      patch[stored] = storedDetails(
        value as Readonly<Record<string, string | number | boolean | null>>,
        itemKey,
      );
    else if (typeof value === 'string' && MARKED_FIELDS.has(field))
      patch[stored] = markItemKey(
        field === 'errorMessage' ? value.slice(0, MAX_ERROR_MESSAGE_LENGTH) : value,
        itemKey,
      );
    else patch[stored] = value;
  }
  return patch;
}

/** The target of a stored item (as {@link storedPatch} wrote it), or undefined for none. */
export function storedTarget(
  itemKey: string,
  stored: { readonly tg?: unknown },
): string | undefined {
  if (stored.tg === true) return itemKey;
  return typeof stored.tg === 'string' ? stored.tg : undefined;
}

/** An item from its stored JSON. */
export function itemFromStored(runId: string, itemKey: string, json: string): ItemRecord {
  const stored = JSON.parse(json) as Partial<Record<StoredName, unknown>>;
  const item: Record<string, unknown> = { runId, itemKey };
  for (const [field, name] of Object.entries(STORED_NAMES)) {
    const value = stored[name];
    if (value === undefined || value === null) continue;
    if (field === 'startedAt' || field === 'finishedAt' || field === 'updatedAt') {
      item[field] = new Date(Number(value)).toISOString();
    } else if (field === 'target') {
      item[field] = storedTarget(itemKey, stored);
    } else if (field === 'details') {
      // Lua's cjson writes an emptied table as `{}` or `[]`: both mean no details.
      if (Array.isArray(value) || typeof value !== 'object') continue;
      item[field] = detailsFromStored(value as Record<string, unknown>, itemKey);
    } else if (typeof value === 'string' && MARKED_FIELDS.has(field)) {
      item[field] = unmarkItemKey(value, itemKey);
    } else {
      item[field] = value;
    }
  }
  const status = item['status'];
  if (!(ITEM_STATUSES as readonly unknown[]).includes(status)) item['status'] = 'failed';
  return item as unknown as ItemRecord;
}

/** A run from its hash (HGETALL); `undefined` for an empty hash (no such run). */
export function runFromHash(hash: Record<string, string>): RunRecord | undefined {
  const runId = hash['runId'];
  if (runId === undefined) return undefined;
  const count = (status: string): number => Number(hash[`count:${status}`] ?? 0);
  const iso = (field: string): string | undefined => {
    const value = hash[field];
    return value === undefined || value === '' ? undefined : new Date(Number(value)).toISOString();
  };
  const optional = (field: string): string | undefined => {
    const value = hash[field];
    return value === undefined || value === '' ? undefined : value;
  };
  const status = hash['status'];
  const record: RunRecord = {
    runId,
    definitionId: hash['definitionId'] ?? '',
    kind: (hash['kind'] ?? 'snapshot') as JobKind,
    fireTime: iso('fireMs') ?? new Date(0).toISOString(),
    trigger: (hash['trigger'] ?? 'cron') as RunTrigger,
    status: isOutcomeStatus(status) ? status : 'failed',
    createdAt: iso('createdAt') ?? new Date(0).toISOString(),
    attempts: Number(hash['attempts'] ?? 0),
    notify: hash['notify'] !== '0',
    counts: {
      total: count('total'),
      queued: count('queued'),
      running: count('running'),
      succeeded: count('succeeded'),
      failed: count('failed'),
      skipped: count('skipped'),
      timedOut: count('timed-out'),
      canceled: count('canceled'),
    },
    ...defined('startedAt', iso('startedAt')),
    ...defined('finishedAt', iso('finishedAt')),
    ...defined('reason', optional('reason')),
    ...defined('errorCode', optional('errorCode')),
    ...defined('errorMessage', optional('errorMessage')),
  };
  return record;
}

/** A run from its fields as a script returns them: HGETALL's flat field/value list. */
export function runFromFlatHash(flat: readonly string[]): RunRecord | undefined {
  const hash: Record<string, string> = {};
  for (let index = 0; index + 1 < flat.length; index += 2) {
    hash[flat[index] ?? ''] = flat[index + 1] ?? '';
  }
  return runFromHash(hash);
}

function defined<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function toMs(value: unknown): number {
  const ms = value instanceof Date ? value.getTime() : Date.parse(String(value));
  if (!Number.isFinite(ms)) throw new TypeError(`not a time: ${String(value)}`);
  return ms;
}
