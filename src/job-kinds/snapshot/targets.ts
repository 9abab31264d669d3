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
 * Resolves a snapshot definition's targets: the listed ids through `getWorkload` each, or
 * through one listing when there are more than {@link MOST_IDS_LOOKED_UP_ONE_BY_ONE} (an unknown
 * id is reported, not fatal), and the selectors through the workloads list, ANDed, each list
 * matching any of its values. Where a selector has a single value the platform filters (`type`,
 * `clusterId`, `slaDomainId`); everything is checked again here, so a platform that ignores a
 * filter changes nothing.
 */
export async function resolveTargets(
  targets: Targets,
  platform: PlatformClient,
  signal?: AbortSignal,
): Promise<ResolvedTargets> {
  const byId = new Map<string, Workload>();
  const unknownIds: { id: string; message: string }[] = [];

  const ids = [...new Set(targets.ids ?? [])];
  if (ids.length > MOST_IDS_LOOKED_UP_ONE_BY_ONE) {
    return resolveThroughListing(ids, targets, platform, signal);
  }
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
  for (const workload of found) if (workload !== undefined) byId.set(workload.id, workload);

  // The clusters' states are read while the workloads are listed: at a second or more a call,
  // each lookup that waits for another delays the night's first trigger.
  const disconnected = disconnectedClusters(platform, signal);
  disconnected.catch(() => undefined);
  if (hasSelectors(targets)) {
    const { vocabulary } = platform.api;
    // Each walk pages one after another (a page's cursor comes with the one before it), so at
    // the platform's latency a 15,000-workload listing of 1,000 a page is 15 round trips; walks
    // of one cluster each run side by side. Their workloads are taken in walk order,
    // whatever order the walks end in, so a night triggers in the same order every time.
    const walks = await Promise.all(
      listingWalks(targets).map(async (filters) => {
        const listed: Workload[] = [];
        for await (const workload of platform.api.workloads.list(filters, signal)) {
          listed.push(workload);
        }
        return listed;
      }),
    );
    for (const workload of walks.flat()) {
      if (!byId.has(workload.id) && matchesSelectors(workload, targets, vocabulary)) {
        byId.set(workload.id, workload);
      }
    }
  }
  const workloads = [...byId.values()];
  return { workloads, unknownIds, disconnectedClusters: await disconnected };
}

/**
 * {@link resolveTargets} for many listed ids: one listing of every workload answers the ids
 * (in the order listed, each once) and the selectors together.
 */
async function resolveThroughListing(
  ids: readonly string[],
  targets: Targets,
  platform: PlatformClient,
  signal: AbortSignal | undefined,
): Promise<ResolvedTargets> {
  const wanted = new Set(ids);
  const listed = new Map<string, Workload>();
  const selected: Workload[] = [];
  const selectors = hasSelectors(targets);
  const { vocabulary } = platform.api;
  for await (const workload of platform.api.workloads.list({}, signal)) {
    if (wanted.has(workload.id)) listed.set(workload.id, workload);
    else if (selectors && matchesSelectors(workload, targets, vocabulary)) selected.push(workload);
  }
  const byId = new Map<string, Workload>();
  const unknownIds: { id: string; message: string }[] = [];
  for (const id of ids) {
    const workload = listed.get(id);
    if (workload === undefined) unknownIds.push({ id, message: NOT_LISTED });
    else byId.set(id, workload);
  }
  for (const workload of selected) if (!byId.has(workload.id)) byId.set(workload.id, workload);
  return {
    workloads: [...byId.values()],
    unknownIds,
    disconnectedClusters: await disconnectedClusters(platform, signal),
  };
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
