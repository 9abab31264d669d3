import type { Queue } from 'bullmq';
import type { JobDefinition } from '../../definitions/job-definition.js';
import { CorruptChunkError } from '../../outcomes/corrupt-chunk-error.js';
import type { OutcomeQueries } from '../../outcomes/outcome-queries.js';
import type { ItemRecord, RunRecord } from '../../outcomes/outcome-records.js';
import type { ItemStatus } from '../../outcomes/outcome-status.js';
import { CronSchedule } from '../../definitions/schedule/cron-schedule.js';
import type { SchedulePause, SchedulePauses } from '../../scheduler/schedule-pauses.js';
import { QUEUE_STATES } from '../metrics/queue-metrics.js';
import { describeWebhook } from '../../job-kinds/notify/webhook-address.js';
import { countsText, runReason } from './outcome-text.js';
import type { RunItemsReader } from '../../outcomes/run-items-reader.js';
import type { RunPictures } from './run-pictures.js';
import type { RunProgress } from './run-progress.js';
import type { WindowTimeline } from './window-timeline.js';

/** A queue the ops server watches, with the kind of job it carries. */
export interface WatchedQueue {
  /** A job kind, or `notify` for the notification queue. */
  readonly kind: string;
  readonly queue: Queue;
}

/** Where the dashboard reads from. */
export interface DashboardSources {
  readonly queries: OutcomeQueries;
  /** Bounded reads of a run's items (a run may have 100,000). */
  readonly items: RunItemsReader;
  /** The data of each run's picture; absent: runs are shown without pictures. */
  readonly pictures?: RunPictures;
  /** The last change to the job definitions that was refused (the last valid set runs on). */
  readonly refusedChange?: RefusedDefinitions;
  /** The definitions this process loaded; a worker process may have none. */
  readonly definitions?: readonly JobDefinition[];
  readonly queues: readonly WatchedQueue[];
  /** Paused schedules (`paw schedules pause`); absent: none shown. */
  readonly pauses?: SchedulePauses;
  readonly clock?: () => Date;
}

/** A change to the job definitions that a reload refused, with every problem. */
export interface RefusedDefinitions {
  /** ISO: when it was refused. */
  readonly at: string;
  /** `file:line:column: path: what is wrong, and the fix`. */
  readonly problems: readonly string[];
}

/** Runs in a definition's history strip. */
export const HISTORY_RUNS = 30;

/** One run in a definition's history strip. */
export interface RunMark {
  readonly runId: string;
  readonly status: string;
  readonly fireTime: string;
  /** From its start to its end; absent for a run that never started or has not ended. */
  readonly durationMs?: number;
  /** Its counts in words, or why it was skipped or missed. */
  readonly detail?: string;
}

/** A definition with when it fires next and how its last run went. */
export interface DefinitionView {
  readonly id: string;
  readonly kind: string;
  readonly enabled: boolean;
  readonly description?: string;
  readonly cron: string;
  readonly timezone: string;
  /** ISO 8601 instants; none for a disabled definition. */
  readonly nextFires: readonly string[];
  readonly lastRun?: RunRecord;
  /** Its last runs, newest first (up to 30): the history strip. */
  readonly history: readonly RunMark[];
  /** The pause in force, if the schedule is paused. */
  readonly pause?: SchedulePause;
  /** Where a run's summary goes, redacted (`https://hooks.example.com/…`), and when. */
  readonly notify?: { readonly target: string; readonly on: string; readonly format: string };
}

/** A run with the items worth showing: problems first, each with its reason. */
export interface RunView {
  readonly run: RunRecord;
  readonly items: readonly ItemRecord[];
  /** Items left out (succeeded ones of a large run, or beyond the per-run limit). */
  readonly itemsNotShown: number;
  /** Why the run's items could not be read (a corrupt packed chunk); the run is shown without. */
  readonly itemsError?: string;
  /** A snapshot run's progress over time. */
  readonly progress?: RunProgress;
  /** A window run's timeline. */
  readonly timeline?: WindowTimeline;
}

/** A queue's depth by state. */
export interface QueueView {
  readonly name: string;
  readonly kind: string;
  readonly counts: Readonly<Record<string, number>>;
  readonly paused: boolean;
  /** Workers connected to the queue; absent when Redis does not tell (CLIENT LIST refused). */
  readonly workers?: number;
}

export interface DashboardModel {
  readonly generatedAt: string;
  /** Absent when this process loaded no definitions (a worker). */
  readonly definitions?: readonly DefinitionView[];
  /** Set while the last change to the definitions is refused. */
  readonly refusedChange?: RefusedDefinitions;
  readonly runs: readonly RunView[];
  readonly queues: readonly QueueView[];
  /** Why the queues could not be read, if they could not. */
  readonly queueError?: string;
}

export interface DashboardLimits {
  /** Recent runs shown; 20 by default. */
  readonly runs?: number;
  /** Items shown per run; 25 by default. */
  readonly itemsPerRun?: number;
  /** Next fire times per definition; 3 by default. */
  readonly nextFires?: number;
}

/** Item statuses in the order the dashboard lists them: what needs attention first. */
const PROBLEM_STATUSES: readonly ItemStatus[] = [
  'failed',
  'timed-out',
  'canceled',
  'skipped',
  'running',
  'queued',
];

/** Reads everything the dashboard shows, in one pass. */
export async function loadDashboardModel(
  sources: DashboardSources,
  limits: DashboardLimits = {},
): Promise<DashboardModel> {
  const now = (sources.clock ?? (() => new Date()))();
  const runLimit = limits.runs ?? 20;
  const [definitions, runs, queues] = await Promise.all([
    sources.definitions === undefined
      ? Promise.resolve(undefined)
      : loadDefinitionViews(
          sources.queries,
          sources.definitions,
          now,
          limits.nextFires ?? 3,
          sources.pauses,
        ),
    loadRunViews(sources, { limit: runLimit }, limits.itemsPerRun ?? 25),
    loadQueueViews(sources.queues).then(
      (views) => ({ views, error: undefined }),
      (error: unknown) => ({
        views: [] as QueueView[],
        error: error instanceof Error ? error.message : String(error),
      }),
    ),
  ]);
  return {
    generatedAt: now.toISOString(),
    ...(definitions === undefined ? {} : { definitions }),
    ...(sources.refusedChange === undefined ? {} : { refusedChange: sources.refusedChange }),
    runs,
    queues: queues.views,
    ...(queues.error === undefined ? {} : { queueError: queues.error }),
  };
}

/** Each definition with its next fires and its last run. */
export async function loadDefinitionViews(
  queries: OutcomeQueries,
  definitions: readonly JobDefinition[],
  now: Date,
  nextFireCount = 3,
  pauses?: SchedulePauses,
): Promise<DefinitionView[]> {
  const paused = (await pauses?.allAt(now)) ?? new Map<string, SchedulePause>();
  return Promise.all(
    definitions.map(async (definition): Promise<DefinitionView> => {
      const { schedule } = definition;
      const recent = await queries.listRuns({ definitionId: definition.id, limit: HISTORY_RUNS });
      const lastRun = recent[0];
      const nextFires = definition.enabled
        ? CronSchedule.create(schedule.cron, schedule.timezone)
            .nextFires(now, nextFireCount)
            .map((fire) => fire.toISOString())
        : [];
      const webhook = definition.notify?.webhook;
      return {
        id: definition.id,
        kind: definition.kind,
        enabled: definition.enabled,
        ...(definition.description === undefined ? {} : { description: definition.description }),
        cron: schedule.cron,
        timezone: schedule.timezone,
        nextFires,
        ...(lastRun === undefined ? {} : { lastRun }),
        history: recent.map(markOf),
        ...pauseOf(paused, definition.id),
        ...(webhook === undefined
          ? {}
          : {
              notify: { target: describeWebhook(webhook), on: webhook.on, format: webhook.format },
            }),
      };
    }),
  );
}

/** Recent runs (newest first), each with its problem items first and its picture. */
async function loadRunViews(
  sources: DashboardSources,
  query: { readonly limit: number; readonly definitionId?: string },
  itemsPerRun: number,
): Promise<RunView[]> {
  const runs = await sources.queries.listRuns(query);
  return Promise.all(
    runs.map((run) => loadRunView(sources.items, run, itemsPerRun, sources.pictures)),
  );
}

/**
 * One run with up to `itemsPerRun` items: problems first, then (small runs only) the rest; and
 * the data of its picture when `pictures` is given. Every read is bounded, whatever the run's
 * size: a running run of 100,000 queued items reads `itemsPerRun` of them.
 */
export async function loadRunView(
  reader: RunItemsReader,
  run: RunRecord,
  itemsPerRun: number,
  pictures?: RunPictures,
): Promise<RunView> {
  try {
    return await loadRunItems(reader, run, itemsPerRun, pictures);
  } catch (error) {
    // One run's unreadable items must not take the page or the other runs with them.
    if (!(error instanceof CorruptChunkError)) throw error;
    return { run, items: [], itemsNotShown: run.counts.total, itemsError: error.message };
  }
}

async function loadRunItems(
  reader: RunItemsReader,
  run: RunRecord,
  itemsPerRun: number,
  pictures?: RunPictures,
): Promise<RunView> {
  const problems: ItemRecord[] = [];
  const found = await reader.withStatuses(run.runId, PROBLEM_STATUSES, itemsPerRun);
  // Grouped by status in PROBLEM_STATUSES' order, by name within each.
  for (const status of PROBLEM_STATUSES) {
    const ofStatus = found.filter((item) => item.status === status);
    ofStatus.sort((a, b) => (a.targetName ?? a.itemKey).localeCompare(b.targetName ?? b.itemKey));
    problems.push(...ofStatus);
  }
  const items: ItemRecord[] = [...problems];
  // Succeeded items are listed only for runs small enough to read whole on every refresh.
  if (items.length < itemsPerRun && run.counts.total <= itemsPerRun) {
    const { items: all } = await reader.sample(run.runId, itemsPerRun);
    const succeeded = all
      .filter((item) => item.status === 'succeeded')
      .sort((a, b) => (a.itemKey < b.itemKey ? -1 : a.itemKey > b.itemKey ? 1 : 0));
    items.push(...succeeded.slice(0, itemsPerRun - items.length));
  }
  const picture = pictures === undefined ? {} : await pictures.of(run);
  return {
    run,
    items,
    itemsNotShown: Math.max(0, run.counts.total - items.length),
    ...picture,
  };
}

/** A run as a mark of its definition's history strip. */
function markOf(run: RunRecord): RunMark {
  const started = run.startedAt === undefined ? undefined : Date.parse(run.startedAt);
  const finished = run.finishedAt === undefined ? undefined : Date.parse(run.finishedAt);
  const detail = run.counts.total > 0 ? countsText(run.counts) : runReason(run);
  return {
    runId: run.runId,
    status: run.status,
    fireTime: run.fireTime,
    ...(started === undefined || finished === undefined
      ? {}
      : { durationMs: Math.max(0, finished - started) }),
    ...(detail === undefined ? {} : { detail }),
  };
}

/** Each watched queue's depth by state. Throws when Redis cannot be read. */
export async function loadQueueViews(queues: readonly WatchedQueue[]): Promise<QueueView[]> {
  return Promise.all(
    queues.map(async ({ kind, queue }): Promise<QueueView> => {
      const [counts, paused, workers] = await Promise.all([
        queue.getJobCounts(...QUEUE_STATES),
        queue.isPaused(),
        // CLIENT LIST may be refused by a managed Redis: then the count is unknown, not an error.
        queue.getWorkersCount().catch(() => undefined),
      ]);
      return {
        name: queue.name,
        kind,
        counts,
        paused,
        ...(workers === undefined ? {} : { workers }),
      };
    }),
  );
}

function pauseOf(
  paused: ReadonlyMap<string, SchedulePause>,
  definitionId: string,
): { pause?: SchedulePause } {
  const pause = paused.get(definitionId);
  return pause === undefined ? {} : { pause };
}
