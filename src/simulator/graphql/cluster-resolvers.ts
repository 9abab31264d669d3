import { versionAtLeast } from '../cluster-version.js';
import type { SimCluster, WorkloadType } from '../records.js';
import type { SimulatorState } from '../simulator-state.js';
import { sortedConnection, type Orderings, type SortedConnectionArgs } from './connection.js';
import {
  allOf,
  argumentError,
  given,
  refuseGiven,
  requireGrant,
  type GraphqlContext,
} from './graphql-context.js';
import { clusterView } from './graphql-views.js';
import { workloadTypesNamed } from './published-words.js';

/** `ClusterFilterInput`. */
interface ClusterFilter {
  readonly clusterLocation?: readonly string[] | null;
  readonly connectionState?: readonly string[] | null;
  readonly cyberEventLockdownMode?: readonly string[] | null;
  readonly excludeEmptyCluster?: boolean | null;
  readonly excludeId?: readonly string[] | null;
  readonly id?: readonly string[] | null;
  readonly isAssignedByParentAccount?: boolean | null;
  readonly isInFatalOrDisconnectedState?: boolean | null;
  readonly minSoftwareVersion?: string | null;
  readonly name?: readonly string[] | null;
  readonly objectType?: readonly string[] | null;
  readonly orgId?: readonly string[] | null;
  readonly product?: string | null;
  readonly productFilters?:
    readonly { readonly productType: string; readonly minSoftwareVersion?: string | null }[] | null;
  readonly productType?: readonly string[] | null;
  readonly registeredMode?: readonly string[] | null;
  readonly registrationTime_gt?: unknown;
  readonly registrationTime_lt?: unknown;
  readonly systemStatus?: readonly string[] | null;
  readonly type?: readonly string[] | null;
}

/** Every cluster of the simulator is a data-management (`CDM`) cluster. */
const PRODUCT = 'CDM';

function requireVersion(argument: string, version: string): string {
  if (!/^\d+(\.\d+)*$/.test(version)) {
    throw argumentError(
      argument,
      `${JSON.stringify(version)} is not a software version (like 9.6.0)`,
    );
  }
  return version;
}

/** The clusters `filter` keeps; what the simulator cannot filter by is a field error. */
function clusterFilter(
  state: SimulatorState,
  filter: ClusterFilter,
): ((cluster: SimCluster) => boolean) | undefined {
  refuseGiven('filter.clusterLocation', filter.clusterLocation, 'it gives clusters no location');
  refuseGiven(
    'filter.cyberEventLockdownMode',
    filter.cyberEventLockdownMode,
    'it has no lockdown modes',
  );
  refuseGiven('filter.orgId', filter.orgId, 'it has no organizations');
  refuseGiven(
    'filter.product',
    filter.product,
    'it models no product lines; filter by productType',
  );
  refuseGiven('filter.registeredMode', filter.registeredMode, 'it keeps no registration modes');
  refuseGiven(
    'filter.registrationTime_gt',
    filter.registrationTime_gt,
    'it keeps no registration times',
  );
  refuseGiven(
    'filter.registrationTime_lt',
    filter.registrationTime_lt,
    'it keeps no registration times',
  );
  refuseGiven('filter.systemStatus', filter.systemStatus, 'it keeps no system status');
  const checks: ((cluster: SimCluster) => boolean)[] = [];
  const ids = given(filter.id);
  if (ids !== undefined) checks.push((cluster) => ids.includes(cluster.id));
  const excluded = given(filter.excludeId);
  if (excluded !== undefined) checks.push((cluster) => !excluded.includes(cluster.id));
  const names = given(filter.name)?.map((name) => name.toLowerCase());
  if (names !== undefined) {
    checks.push((cluster) => names.some((name) => cluster.name.toLowerCase().includes(name)));
  }
  const types = given(filter.type);
  if (types !== undefined) checks.push((cluster) => types.includes(cluster.type));
  const states = given(filter.connectionState);
  if (states !== undefined) checks.push((cluster) => states.includes(cluster.connectionState));
  // No cluster is in a fatal state: only a disconnected one counts.
  if (filter.isInFatalOrDisconnectedState != null) {
    const wanted = filter.isInFatalOrDisconnectedState;
    checks.push((cluster) => (cluster.connectionState === 'Disconnected') === wanted);
  }
  // No cluster is assigned by a parent account: the simulator is one account.
  if (filter.isAssignedByParentAccount === true) checks.push(() => false);
  if (filter.minSoftwareVersion != null) {
    const minimum = requireVersion('filter.minSoftwareVersion', filter.minSoftwareVersion);
    checks.push((cluster) => versionAtLeast(cluster.version, minimum));
  }
  const products = given(filter.productType);
  if (products !== undefined && !products.includes(PRODUCT)) checks.push(() => false);
  const perProduct = given(filter.productFilters);
  if (perProduct !== undefined) {
    const minimums = perProduct.flatMap((entry, index) => {
      if (entry.productType !== PRODUCT) return [];
      const version = entry.minSoftwareVersion;
      const argument = `filter.productFilters[${index}].minSoftwareVersion`;
      return [version == null ? '0' : requireVersion(argument, version)];
    });
    checks.push((cluster) => minimums.some((minimum) => versionAtLeast(cluster.version, minimum)));
  }
  const objectTypes = given(filter.objectType);
  if (objectTypes !== undefined || filter.excludeEmptyCluster === true) {
    const hosted = typesByCluster(state);
    const wanted = objectTypes === undefined ? undefined : workloadTypesNamed(objectTypes);
    checks.push((cluster) => {
      const here = hosted.get(cluster.id) ?? new Set<WorkloadType>();
      return wanted === undefined ? here.size > 0 : [...here].some((type) => wanted.has(type));
    });
  }
  return allOf(checks);
}

/** The workload types each cluster holds. */
function typesByCluster(state: SimulatorState): Map<string, Set<WorkloadType>> {
  const types = new Map<string, Set<WorkloadType>>();
  for (const workload of state.inventory.workloads) {
    let here = types.get(workload.cluster.id);
    if (here === undefined) types.set(workload.cluster.id, (here = new Set()));
    here.add(workload.type);
  }
  return types;
}

/** What the simulator can sort clusters by; the rest are figures it does not keep. */
const CLUSTER_ORDERINGS: Orderings<SimCluster> = {
  what: 'clusters',
  keys: {
    ClusterName: (cluster) => [cluster.name],
    ClusterType: (cluster) => [cluster.type],
    INSTALLED_VERSION: (cluster) => cluster.version.split('.').map(Number),
  },
  whyNot: 'it keeps no capacity, location or registration figures',
  defaultSortBy: 'ClusterName',
  defaultOrder: () => 'ASC',
  tieBreak: (cluster) => cluster.id,
  // The inventory lists clusters by name, then id.
  presorted: 'ClusterName',
};

/** Clusters, from the same inventory as the REST routes. */
export const clusterResolvers = {
  clusterConnection(
    args: SortedConnectionArgs & { filter?: ClusterFilter | null },
    context: GraphqlContext,
  ) {
    requireGrant(context, 'VIEW_INVENTORY');
    const { state } = context;
    const filter = clusterFilter(state, args.filter ?? {});
    const clusters = state.inventory.clusters;
    return sortedConnection('clusters', clusters, CLUSTER_ORDERINGS, args, filter, clusterView);
  },

  /** The same clusters: the simulator's account has no clusters of other organizations. */
  allClusterConnection(
    args: SortedConnectionArgs & { filter?: ClusterFilter | null },
    context: GraphqlContext,
  ) {
    return clusterResolvers.clusterConnection(args, context);
  },
};
