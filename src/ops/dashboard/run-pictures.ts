import { INDEXED_ITEM_STATUSES } from '../../outcomes/outcome-keys.js';
import type { ItemRecord, RunRecord } from '../../outcomes/outcome-records.js';
import type { ItemStatus } from '../../outcomes/outcome-status.js';
import type { RateLimitRecord } from '../../platform/rate-limit/rate-limit-record.js';
import type { RunItemsReader } from '../../outcomes/run-items-reader.js';
import { computeRunProgress, type RunProgress } from './run-progress.js';
import { computeWindowTimeline, type WindowTimeline } from './window-timeline.js';

/**
 * Items read at most to draw one snapshot run: a run of up to this many is drawn exactly; a
 * larger one from this many (plus its items that did not succeed, read exactly up to the same
 * bound), scaled to its counts. 10,000 items are about 2 MB from Redis, a few tens of ms.
 */
const MAX_ITEMS_READ = 10_000;
/** A window's items (two per SLA Domain and cluster) read at most. */
const MAX_WINDOW_ITEMS = 400;
/** Pictures of ended runs kept: they never change, so each is drawn from Redis once. */
const CACHED_RUNS = 200;
/** Item statuses read exactly from their own sets when a run is sampled. */
const EXACT_STATUSES: readonly ItemStatus[] = INDEXED_ITEM_STATUSES;

/** What the dashboard draws for a run: its progress (snapshot) or its timeline (window). */
export interface RunPicture {
  readonly progress?: RunProgress;
  readonly timeline?: WindowTimeline;
}

/**
 * Loads the data of each run's picture with bounded reads, and keeps those of ended runs (which
 * no longer change) so that a refresh every few seconds reads only the runs still going.
 */
export class RunPictures {
  private readonly ended = new Map<string, RunPicture>();

  constructor(
    private readonly reader: RunItemsReader,
    private readonly rateLimits: RateLimitRecord | undefined,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async of(run: RunRecord): Promise<RunPicture> {
    if (run.kind === 'rotate-secret' || run.startedAt === undefined) return {};
    const cacheKey = `${run.runId} ${run.finishedAt ?? ''}`;
    const cached = this.ended.get(cacheKey);
    if (cached !== undefined) return cached;
    const picture =
      run.kind === 'snapshot'
        ? { progress: await this.progress(run) }
        : { timeline: await this.timeline(run) };
    if (run.finishedAt !== undefined) {
      if (this.ended.size >= CACHED_RUNS) {
        const oldest = this.ended.keys().next().value;
        if (oldest !== undefined) this.ended.delete(oldest);
      }
      this.ended.set(cacheKey, picture);
    }
    return picture;
  }

  private async progress(run: RunRecord): Promise<RunProgress> {
    const now = this.clock();
    let sample = await this.reader.sample(run.runId, MAX_ITEMS_READ);
    if (!sample.complete) {
      // The few that did not succeed are read whole: failures are marked where they happened.
      const exact: ItemRecord[] = [];
      for (const status of EXACT_STATUSES) {
        exact.push(...(await this.reader.withStatuses(run.runId, [status], MAX_ITEMS_READ)));
      }
      const keys = new Set(exact.map((item) => item.itemKey));
      sample = {
        items: [...sample.items.filter((item) => !keys.has(item.itemKey)), ...exact],
        complete: false,
      };
    }
    const start = new Date(run.startedAt ?? run.fireTime);
    const end = run.finishedAt === undefined ? now : new Date(run.finishedAt);
    const rateLimits = (await this.rateLimits?.between(start, end)) ?? new Map<number, number>();
    return computeRunProgress(run, sample, rateLimits, now);
  }

  private async timeline(run: RunRecord): Promise<WindowTimeline> {
    const { items } = await this.reader.sample(run.runId, MAX_WINDOW_ITEMS);
    return computeWindowTimeline(run, items, this.clock());
  }
}
