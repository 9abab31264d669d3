import type { SnapshotDefinition } from '../../definitions/snapshot-definition.js';
import { matchesNamePattern } from '../../definitions/name-pattern.js';
import { NotFoundError, PlatformError } from '../../platform/http/platform-errors.js';
import type { PlatformClient } from '../../platform/platform-client.js';
import { DISCONNECTED } from '../../platform/records/cluster.js';
import type { Workload, WorkloadFilters } from '../../platform/records/workload.js';
import type { Vocabulary } from '../../platform/vocabulary/vocabulary.js';

type Targets = SnapshotDefinition['targets'];

/** The workloads a snapshot run covers, resolved at fire time. */
export interface ResolvedTargets {
  /** Every workload selected, the listed ids first, each once. */
  readonly workloads: readonly Workload[];
  /** Ids the definition lists that the platform does not know, with its message. */
  readonly unknownIds: readonly { readonly id: string; readonly message: string }[];
  /** The clusters the platform reports `Disconnected` now, id → name. */
  readonly disconnectedClusters: ReadonlyMap<string, string>;
}

/** Whether a run triggers a workload's snapshot, or skips it and why. */
export type TargetDecision =
  { readonly action: 'trigger' } | { readonly action: 'skip'; readonly reason: string };

/**
 * What a run does with a resolved workload: a type the platform cannot snapshot on demand is
 * skipped (the vocabulary says which), and so is a workload on a cluster the platform reports
 * `Disconnected` (its trigger can only fail, as CLUSTER_UNAVAILABLE, and would be retried all
 * night: the workload is not protected, and the reason says why). The one rule for the run, its
 * preview and `paw coverage`.
 */
export function targetDecision(
  workload: Workload,
  resolved: Pick<ResolvedTargets, 'disconnectedClusters'>,
  vocabulary: Vocabulary,
): TargetDecision {
  const decision = vocabulary.snapshotDecision(workload.type);
  if (decision.action === 'skip') return { action: 'skip', reason: decision.reason };
  const cluster =
    workload.clusterId === undefined
      ? undefined
      : resolved.disconnectedClusters.get(workload.clusterId);
  if (cluster !== undefined) {
    return {
      action: 'skip',
      reason: `cluster ${cluster} (${workload.clusterId ?? ''}) is ${DISCONNECTED}: no snapshot can be taken until it reconnects`,
    };
  }
  return { action: 'trigger' };
}

/** How many `getWorkload` calls for listed ids are in flight at once (the gate paces them). */
const ID_LOOKUP_CONCURRENCY = 8;

/**
 * The most listed ids looked up one `getWorkload` call each. Past it, one paged listing of every
 * workload answers them all: 100,000 ids were 100,000 calls per resolution (about 22 minutes
 * through the request gate), where a listing of 15,000 workloads is 150 pages. Below it, a few
 * calls are cheaper than listing a large inventory.
 */
const MOST_IDS_LOOKED_UP_ONE_BY_ONE = 20;

/** Why a listed id is unknown, when the listing (not `getWorkload`) answered it. */
const NOT_LISTED = 'the platform lists no workload with this id';

/**
 * One page of a run's targets, as the listing gives it ({@link targetPages}): a run records and
 * triggers a page's workloads while the next pages are read.
 */
export interface TargetPage {
  /** The walk it is a page of (its index in {@link listingWalks}); -1 for the listed ids. */
  readonly walk: number;
  /** The workloads selected on this page that no page before selected, in listing order. */
  readonly workloads: readonly Workload[];
  /**
   * Listed ids the platform does not know: on the ids' own page (looked up one by one), or on
   * the last page (answered by the listing, which knows them only once it is read to its end).
   */
  readonly unknownIds: readonly { readonly id: string; readonly message: string }[];
  /** The clusters the platform reports `Disconnected` now (read before the first page). */
  readonly disconnectedClusters: ReadonlyMap<string, string>;
  /** Whether this is the last page: every walk has been read to its end. */
  readonly last: boolean;
}

/**
 * Resolves a snapshot definition's targets: the listed ids through `getWorkload` each, or
 * through one listing when there are more than {@link MOST_IDS_LOOKED_UP_ONE_BY_ONE} (an unknown
 * id is reported, not fatal), and the selectors through the workloads list, ANDed, each list
 * matching any of its values. Where a selector has a single value the platform filters (`type`,
 * `clusterId`, `slaDomainId`); everything is checked again here, so a platform that ignores a
 * filter changes nothing. This is the whole result, in the same order every time (the listed ids
 * first, then each walk's workloads in walk order): `paw`'s preview and coverage. A run takes
 * the same page by page ({@link targetPages}).
 */
export async function resolveTargets(
  targets: Targets,
  platform: PlatformClient,
  signal?: AbortSignal,
): Promise<ResolvedTargets> {
  const byWalk = new Map<number, Workload[]>();
  const unknownIds: { id: string; message: string }[] = [];
  let disconnected: ReadonlyMap<string, string> = new Map();
  for await (const page of selectedPages(targets, platform, signal)) {
    const walk = byWalk.get(page.walk) ?? [];
    walk.push(...page.workloads);
    byWalk.set(page.walk, walk);
    unknownIds.push(...page.unknownIds);
    disconnected = page.disconnectedClusters;
  }
  // Walk order, whatever order the pages came in (a workload two walks list counts where the
  // first of them lists it), so a preview reads the same every time.
  const selected = [...byWalk.entries()]
    .sort(([a], [b]) => a - b)
    .flatMap(([, workloads]) => workloads);
  const found = new Map(selected.map((workload) => [workload.id, workload]));
  const byId = new Map<string, Workload>();
  for (const id of new Set(targets.ids ?? [])) {
    const workload = found.get(id);
    if (workload !== undefined) byId.set(id, workload);
  }
  for (const workload of selected) if (!byId.has(workload.id)) byId.set(workload.id, workload);
  return { workloads: [...byId.values()], unknownIds, disconnectedClusters: disconnected };
}

/**
 * {@link resolveTargets} page by page, as the platform answers: each page's workloads that no
 * page before selected (a workload two walks list comes once), in listing order within a walk,
 * the walks' pages in the order they arrive; the listed ids looked up one by one come first, as
 * a page of their own. The disconnected clusters are read before the first page is given (one
 * call, made beside the first pages). The walks read ahead while the caller works on a page;
 * leaving the loop (an error, a break) stops them.
 */
export async function* targetPages(
  targets: Targets,
  platform: PlatformClient,
  signal?: AbortSignal,
): AsyncGenerator<TargetPage, void, undefined> {
  const seen = new Set<string>();
  for await (const page of selectedPages(targets, platform, signal)) {
    const workloads = page.workloads.filter((workload) => {
      if (seen.has(workload.id)) return false;
      seen.add(workload.id);
      return true;
    });
    yield { ...page, workloads };
  }
}

/** The pages of {@link targetPages}, a workload listed by two walks on a page of each. */
async function* selectedPages(
  targets: Targets,
  platform: PlatformClient,
  signal: AbortSignal | undefined,
): AsyncGenerator<TargetPage, void, undefined> {
  const { vocabulary } = platform.api;
  const ids = [...new Set(targets.ids ?? [])];
  const throughListing = ids.length > MOST_IDS_LOOKED_UP_ONE_BY_ONE;
  const selectors = hasSelectors(targets);
  // Aborted once the caller takes no more pages: no walk reads on for nobody.
  const stop = new AbortController();
  const calls = signal === undefined ? stop.signal : AbortSignal.any([signal, stop.signal]);
  try {
    // Everything starts at once: at a second or more a call, each lookup that waits for another
    // delays the night's first trigger.
    const disconnected = disconnectedClusters(platform, calls);
    disconnected.catch(() => undefined);
    const lookedUp = throughListing ? undefined : lookUpIds(ids, platform, calls);
    lookedUp?.catch(() => undefined);
    // Each walk pages one after another (a page's cursor comes with the one before it); walks of
    // one cluster each run side by side. Past MOST_IDS_LOOKED_UP_ONE_BY_ONE ids, one listing of
    // everything answers the ids and the selectors together.
    const walks = throughListing ? [{}] : selectors ? listingWalks(targets) : [];
    const pages = new WalkPages(walks.length);
    walks.forEach((filters, walk) => {
      void (async () => {
        try {
          for await (const page of platform.api.workloads.list(filters, calls).pages()) {
            pages.push(walk, page.nodes, !page.hasNextPage);
          }
          pages.end(walk);
        } catch (error) {
          pages.fail(error);
        }
      })();
    });

    const disconnectedMap = await disconnected;
    if (lookedUp !== undefined) {
      yield {
        walk: -1,
        ...(await lookedUp),
        disconnectedClusters: disconnectedMap,
        last: walks.length === 0,
      };
    }
    const wanted = new Set(throughListing ? ids : []);
    const listed = new Set<string>();
    for (;;) {
      const page = await pages.next();
      if (page === undefined) return;
      const workloads: Workload[] = [];
      for (const workload of page.nodes) {
        if (wanted.has(workload.id)) {
          listed.add(workload.id);
          workloads.push(workload);
        } else if (selectors && matchesSelectors(workload, targets, vocabulary)) {
          workloads.push(workload);
        }
      }
      const last = pages.drained();
      const unknownIds = last
        ? [...wanted].filter((id) => !listed.has(id)).map((id) => ({ id, message: NOT_LISTED }))
        : [];
      yield { walk: page.walk, workloads, unknownIds, disconnectedClusters: disconnectedMap, last };
    }
  } finally {
    stop.abort();
  }
}

/** The listed ids looked up one `getWorkload` call each: those found, and those unknown. */
async function lookUpIds(
  ids: readonly string[],
  platform: PlatformClient,
  signal: AbortSignal,
): Promise<Pick<TargetPage, 'workloads' | 'unknownIds'>> {
  const unknownIds: { id: string; message: string }[] = [];
  const found = await mapWithConcurrency(ids, ID_LOOKUP_CONCURRENCY, async (id) => {
    try {
      return await platform.api.workloads.get(id, signal);
    } catch (error) {
      if (error instanceof NotFoundError) {
        unknownIds.push({ id, message: error.platformMessage });
        return undefined;
      }
      throw error;
    }
  });
  const workloads = found.filter((workload): workload is Workload => workload !== undefined);
  return { workloads, unknownIds };
}

/** A page of one walk, as {@link WalkPages} holds it. */
interface WalkPage {
  readonly walk: number;
  readonly nodes: readonly Workload[];
}

/**
 * The pages of walks running side by side, in the order they arrive, for one reader: a walk's
 * failure is the reader's at its next page.
 */
class WalkPages {
  private readonly pages: WalkPage[] = [];
  private readonly open = new Set<number>();
  private failure: { readonly error: unknown } | undefined;
  private wake: (() => void) | undefined;

  constructor(walks: number) {
    for (let walk = 0; walk < walks; walk++) this.open.add(walk);
  }

  /** A walk's page; `last` when the walk has no page after it. */
  push(walk: number, nodes: readonly Workload[], last: boolean): void {
    this.pages.push({ walk, nodes });
    if (last) this.open.delete(walk);
    this.wake?.();
  }

  end(walk: number): void {
    this.open.delete(walk);
    this.wake?.();
  }

  fail(error: unknown): void {
    this.failure ??= { error };
    this.wake?.();
  }

  /** Whether every page has been taken and no walk has one to come. */
  drained(): boolean {
    return this.pages.length === 0 && this.open.size === 0;
  }

  /** The next page; undefined once every walk has ended and every page was taken. */
  async next(): Promise<WalkPage | undefined> {
    for (;;) {
      if (this.failure !== undefined) throw this.failure.error;
      const page = this.pages.shift();
      if (page !== undefined) return page;
      if (this.open.size === 0) return undefined;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}

/**
 * The clusters the platform reports `Disconnected` (one listing, checked again here). A platform
 * that cannot list them (a permission the account lacks, an outage) leaves the map empty: the
 * workloads are then triggered, and a disconnected cluster's answer is recorded, as before.
 */
async function disconnectedClusters(
  platform: PlatformClient,
  signal: AbortSignal | undefined,
): Promise<Map<string, string>> {
  const clusters = new Map<string, string>();
  try {
    for await (const cluster of platform.api.clusters.list(
      { connectionState: DISCONNECTED },
      signal,
    )) {
      if (cluster.connectionState?.toLowerCase() === DISCONNECTED.toLowerCase())
        clusters.set(cluster.id, cluster.name);
    }
  } catch (error) {
    if (!(error instanceof PlatformError) || signal?.aborted === true) throw error;
    clusters.clear();
  }
  return clusters;
}

function hasSelectors(targets: Targets): boolean {
  return (
    targets.types !== undefined ||
    targets.namePattern !== undefined ||
    targets.clusterIds !== undefined ||
    targets.slaDomainIds !== undefined ||
    targets.slaDomainNames !== undefined
  );
}

/** At most this many listings of one definition's workloads run at once. */
const MAX_LISTING_WALKS = 16;

/**
 * The listings that together cover a definition's selectors, each with the filters the platform
 * applies itself: one per cluster (and per SLA Domain where that makes at most
 * {@link MAX_LISTING_WALKS}), a selector split only while the product stays within it (beyond, it
 * is left to the check here); a type only when the definition names one (the REST client filters
 * types itself, so a walk per type would list every workload once per type). Everything is
 * checked again afterwards, so a platform that ignores a filter changes which workloads are
 * listed twice, never which are selected.
 */
export function listingWalks(targets: Targets): WorkloadFilters[] {
  const type = targets.types?.length === 1 ? targets.types[0] : undefined;
  let walks: WorkloadFilters[] = [type === undefined ? {} : { type }];
  const selectors = [
    ['clusterId', targets.clusterIds],
    ['slaDomainId', targets.slaDomainIds],
  ] as const;
  for (const [filter, values] of selectors) {
    if (values === undefined || values.length === 0) continue;
    if (walks.length * values.length > MAX_LISTING_WALKS) continue;
    walks = walks.flatMap((walk) => values.map((value) => ({ ...walk, [filter]: value })));
  }
  return walks;
}

/**
 * Whether a workload matches every selector the definition gives. A type matches by kind: the
 * definition may say `VSPHERE_VM` of a workload the platform calls `VmwareVirtualMachine`.
 */
function matchesSelectors(workload: Workload, targets: Targets, vocabulary: Vocabulary): boolean {
  if (
    targets.types !== undefined &&
    !targets.types.some((type) => vocabulary.sameWorkloadType(type, workload.type))
  )
    return false;
  if (targets.namePattern !== undefined && !matchesNamePattern(workload.name, targets.namePattern))
    return false;
  if (
    targets.clusterIds !== undefined &&
    (workload.clusterId == null || !targets.clusterIds.includes(workload.clusterId))
  )
    return false;
  if (
    targets.slaDomainIds !== undefined &&
    (workload.slaDomainId == null || !targets.slaDomainIds.includes(workload.slaDomainId))
  )
    return false;
  if (targets.slaDomainNames !== undefined) {
    const name = workload.slaDomainName?.toLowerCase();
    if (
      name === undefined ||
      !targets.slaDomainNames.some((wanted) => wanted.toLowerCase() === name)
    )
      return false;
  }
  return true;
}

async function mapWithConcurrency<T, R>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  });
  await Promise.all(lanes);
  return results;
}
