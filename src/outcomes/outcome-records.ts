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

/** The stored JSON patch of an update: compact names, times as epoch ms, `null` to clear. */
export function storedPatch(update: ItemUpdate): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const [field, stored] of Object.entries(STORED_NAMES)) {
    if (field === 'updatedAt') continue;
    const value = (update as unknown as Record<string, unknown>)[field];
    if (value === undefined) continue;
    if (value === null) patch[stored] = null;
    else if (field === 'startedAt' || field === 'finishedAt') patch[stored] = toMs(value);
    else if (field === 'errorMessage' && typeof value === 'string')
      patch[stored] = value.slice(0, MAX_ERROR_MESSAGE_LENGTH);
    else patch[stored] = value;
  }
  return patch;
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
    } else if (field === 'details' && Array.isArray(value)) {
      // Lua's cjson writes an emptied table as `{}` or `[]`: both mean no details.
      continue;
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
