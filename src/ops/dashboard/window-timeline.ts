import type { ItemRecord, RunRecord } from '../../outcomes/outcome-records.js';
import type { ItemStatus } from '../../outcomes/outcome-status.js';
import { itemReason } from './outcome-text.js';

/** What a window did to one SLA Domain on one cluster. */
type WindowRowState =
  /** paw paused it (its resume is due, done, or failed). */
  | 'paused'
  /** paw left it as it was: paused by someone else before the window, or its state unknown. */
  | 'left-alone'
  /** The pause failed: paw did not pause it. */
  | 'failed';

/** One step (the pause or the resume) of a row. */
export interface WindowStep {
  readonly status: ItemStatus;
  /** ISO: when it ended; absent while it is due. */
  readonly at?: string;
  readonly reason?: string;
}

export interface WindowRow {
  /** The item key without its step (`<slaDomainId>/<clusterId>`). */
  readonly key: string;
  /** `Gold on cluster-a`. */
  readonly name: string;
  readonly state: WindowRowState;
  readonly pause?: WindowStep;
  readonly resume?: WindowStep;
}

/** A window run's timeline: each target's pause and resume, between the window's start and end. */
export interface WindowTimeline {
  readonly start: string;
  /** The latest step, the run's end, or now for a window still open. */
  readonly end: string;
  /** Whether the window is still open (its resumes not all done). */
  readonly open: boolean;
  readonly rows: readonly WindowRow[];
  /** Rows not drawn (a window over very many SLA Domains). */
  readonly rowsNotShown: number;
}

/** Rows drawn at most: a window over more domains shows the first ones, by name. */
const MAX_ROWS = 40;

function stepOf(item: ItemRecord | undefined): WindowStep | undefined {
  if (item === undefined) return undefined;
  const reason = itemReason(item);
  return {
    status: item.status,
    ...(item.finishedAt === undefined ? {} : { at: item.finishedAt }),
    ...(reason === undefined ? {} : { reason }),
  };
}

function stateOf(pause: WindowStep | undefined, resume: WindowStep | undefined): WindowRowState {
  if (pause?.status === 'failed') return 'failed';
  if (pause?.status === 'skipped') return 'left-alone';
  // A resume with no pause on record yet is the intent written before the pause: paw holds it.
  if (pause === undefined && resume === undefined) return 'failed';
  return 'paused';
}

/**
 * A window run's timeline from its items (`<slaDomainId>/<clusterId>/pause` and `…/resume`;
 * a target that could not be resolved has a `…/pause` item only). An SLA Domain paused by
 * someone else before the window has a skipped pause: it is shown as left alone.
 */
export function computeWindowTimeline(
  run: RunRecord,
  items: readonly ItemRecord[],
  now: Date,
): WindowTimeline {
  const steps = new Map<string, { pause?: ItemRecord; resume?: ItemRecord }>();
  for (const item of items) {
    const match = /^(.*)\/(pause|resume)$/.exec(item.itemKey);
    if (match === null) continue;
    const key = match[1] ?? item.itemKey;
    const entry = steps.get(key) ?? {};
    entry[match[2] === 'pause' ? 'pause' : 'resume'] = item;
    steps.set(key, entry);
  }
  const rows = [...steps.entries()]
    .map(([key, { pause, resume }]): WindowRow => {
      const pauseStep = stepOf(pause);
      const resumeStep = stepOf(resume);
      return {
        key,
        name: pause?.targetName ?? resume?.targetName ?? key,
        state: stateOf(pauseStep, resumeStep),
        ...(pauseStep === undefined ? {} : { pause: pauseStep }),
        ...(resumeStep === undefined ? {} : { resume: resumeStep }),
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name) || a.key.localeCompare(b.key));

  const startMs = Date.parse(run.startedAt ?? run.fireTime);
  const open = run.finishedAt === undefined;
  let endMs = open ? now.getTime() : Date.parse(run.finishedAt);
  for (const item of items) {
    if (item.finishedAt !== undefined) endMs = Math.max(endMs, Date.parse(item.finishedAt));
  }
  // A window that ended within a second still gets a visible width.
  endMs = Math.max(endMs, startMs + 1000);
  return {
    start: new Date(startMs).toISOString(),
    end: new Date(endMs).toISOString(),
    open,
    rows: rows.slice(0, MAX_ROWS),
    rowsNotShown: Math.max(0, rows.length - MAX_ROWS),
  };
}
