import { createHash } from 'node:crypto';
import { isoTime } from '../clock.js';
import type { ClusterType, SimCluster, SimEvent } from '../records.js';
import type { ActivityObject } from '../sim-vocabulary.js';
import type { SimulatorState } from '../simulator-state.js';
import { sortedConnection, type Orderings, type SortedConnectionArgs } from './connection.js';
import {
  allOf,
  dateTimeArgument,
  given,
  refuseGiven,
  requireGrant,
  type GraphqlContext,
} from './graphql-context.js';
import { clusterView } from './graphql-views.js';
import { activityObjectsNamed, PUBLISHED_WORDS } from './published-words.js';

/** `ActivitySeriesFilter`. */
interface ActivitySeriesFilter {
  readonly ancestorId?: string | null;
  readonly clusterId?: readonly string[] | null;
  readonly clusterType?: readonly string[] | null;
  readonly lastActivityStatus?: readonly string[] | null;
  readonly lastActivityType?: readonly string[] | null;
  readonly lastUpdatedTimeGt?: unknown;
  readonly lastUpdatedTimeLt?: unknown;
  readonly objectFid?: readonly string[] | null;
  readonly objectName?: string | null;
  readonly objectNamePrefix?: string | null;
  readonly objectType?: readonly string[] | null;
  readonly orgIds?: readonly string[] | null;
  readonly searchTerm?: string | null;
  readonly severity?: readonly string[] | null;
  readonly startTimeGt?: unknown;
  readonly startTimeLt?: unknown;
  readonly userIds?: readonly string[] | null;
}

/**
 * Where an activity of the platform itself happens (an SLA Domain change): the schema's
 * `clusterUuid` and `clusterName` are non-null, and the platform is a cluster of type `Polaris`.
 */
const THE_PLATFORM = { id: '00000000-0000-0000-0000-000000000000', name: 'Polaris' } as const;

/** The schema's `EventClusterType` of each cluster type; the platform itself is `RUBRIK_SAAS`. */
const EVENT_CLUSTER_TYPES: Readonly<Record<ClusterType, string>> = {
  OnPrem: 'ON_PREM',
  Cloud: 'CLOUD',
  Robo: 'ROBO',
  ExoCompute: 'EXO_COMPUTE',
  Polaris: 'RUBRIK_SAAS',
  Unknown: 'UNKNOWN_CLUSTER_TYPE',
};

/** One activity series: the events of one snapshot job, or one configuration change. */
interface Series {
  readonly key: string;
  readonly first: SimEvent;
  last: SimEvent;
  /** Its events, oldest first. */
  readonly events: SimEvent[];
  readonly cluster: SimCluster | undefined;
}

function hashOf(key: string): string {
  return createHash('sha1').update(key).digest('hex');
}

/** A stable UUID for a series, from what identifies it (its job, or its one event). */
function seriesUuid(key: string): string {
  const hex = hashOf(key);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A stable `Long` id for a series: 52 bits of the same hash, exact in a JSON number. */
function seriesLongId(key: string): number {
  return Number.parseInt(hashOf(`id:${key}`).slice(0, 13), 16);
}

/** The activity series by now, newest update first (built from the event log on each read). */
function seriesByNow(state: SimulatorState): Series[] {
  const byKey = new Map<string, Series>();
  for (const event of state.events.happened()) {
    const key = event.jobId ?? `event:${event.id}`;
    const series = byKey.get(key);
    if (series === undefined) {
      const cluster =
        event.clusterId === null ? undefined : state.inventory.cluster(event.clusterId);
      byKey.set(key, { key, first: event, last: event, events: [event], cluster });
    } else {
      series.last = event;
      series.events.push(event);
    }
  }
  return [...byKey.values()].sort(
    (a, b) => b.last.time - a.last.time || (a.key < b.key ? 1 : a.key > b.key ? -1 : 0),
  );
}

const objectOf = (series: Series) => series.first.objectType as ActivityObject;
const clusterIdOf = (series: Series) => series.cluster?.id ?? THE_PLATFORM.id;
const clusterNameOf = (series: Series) => series.cluster?.name ?? THE_PLATFORM.name;

/** A series' activities newest first (the platform's order), with their own cursors. */
const ACTIVITY_ORDERINGS: Orderings<SimEvent> = {
  what: 'activities',
  keys: { TIME: (event) => [event.time] },
  defaultSortBy: 'TIME',
  defaultOrder: () => 'DESC',
  tieBreak: (event) => event.id,
};

/** How far the job of a series has got (`"45%"`), as its status query answers; else null. */
function progressOf(state: SimulatorState, series: Series): string | null {
  const job = series.first.jobId === null ? undefined : state.jobs.find(series.first.jobId);
  return job === undefined
    ? null
    : `${Math.round(state.jobs.stateOf(job, state.clock.now()).progress)}%`;
}

function seriesView(state: SimulatorState, series: Series) {
  const { first, last } = series;
  const view = {
    id: seriesLongId(series.key),
    activitySeriesId: seriesUuid(series.key),
    objectId: first.objectId,
    fid: first.objectId,
    objectName: first.objectName,
    objectType: PUBLISHED_WORDS.eventObjectType(objectOf(series)),
    isOnDemand: first.jobId !== null,
    lastActivityType: PUBLISHED_WORDS.eventType(last.type),
    lastActivityStatus: PUBLISHED_WORDS.eventStatus(last.status),
    severity: PUBLISHED_WORDS.eventSeverity(last.severity),
    startTime: isoTime(first.time),
    lastUpdated: isoTime(last.time),
    clusterUuid: clusterIdOf(series),
    clusterName: clusterNameOf(series),
    lastActivityMessage: last.message,
    location: clusterNameOf(series),
    cluster: () => (series.cluster === undefined ? null : clusterView(series.cluster)),
    progress: () => progressOf(state, series),
    activityConnection: (args: SortedConnectionArgs) =>
      sortedConnection(
        `activities:${series.key}`,
        series.events,
        ACTIVITY_ORDERINGS,
        args,
        undefined,
        (event) => ({
          id: event.id,
          activitySeries: view,
          clusterId: clusterIdOf(series),
          message: event.message,
          objectId: event.objectId,
          objectType: PUBLISHED_WORDS.eventObjectType(objectOf(series)),
          severity: PUBLISHED_WORDS.eventSeverity(event.severity),
          status: PUBLISHED_WORDS.eventStatus(event.status),
          type: PUBLISHED_WORDS.eventType(event.type),
          time: isoTime(event.time),
          progress: event === series.last ? progressOf(state, series) : null,
          activityInfo: null,
          errorInfo: null,
        }),
      ),
  };
  return view;
}

/** The series `filters` keeps; what the simulator cannot filter by is a field error. */
function seriesFilter(filters: ActivitySeriesFilter): ((series: Series) => boolean) | undefined {
  refuseGiven('filters.orgIds', filters.orgIds, 'it has no organizations');
  refuseGiven('filters.userIds', filters.userIds, 'it does not record who started an activity');
  const checks: ((series: Series) => boolean)[] = [];
  const times = [
    ['startTimeGt', (series: Series) => series.first.time, 1],
    ['startTimeLt', (series: Series) => series.first.time, -1],
    ['lastUpdatedTimeGt', (series: Series) => series.last.time, 1],
    ['lastUpdatedTimeLt', (series: Series) => series.last.time, -1],
  ] as const;
  for (const [name, timeOf, side] of times) {
    const bound = dateTimeArgument(`filters.${name}`, filters[name]);
    if (bound !== undefined) checks.push((series) => side * (timeOf(series) - bound) > 0);
  }
  const fids = given(filters.objectFid);
  if (fids !== undefined) checks.push((series) => fids.includes(series.first.objectId));
  const objectTypes = given(filters.objectType);
  if (objectTypes !== undefined) {
    const objects = activityObjectsNamed(objectTypes);
    checks.push((series) => objects.has(objectOf(series)));
  }
  // The filter words of types, statuses and severities are the simulator's canonical words.
  const types = given(filters.lastActivityType);
  if (types !== undefined) checks.push((series) => types.includes(series.last.type));
  const statuses = given(filters.lastActivityStatus);
  if (statuses !== undefined) checks.push((series) => statuses.includes(series.last.status));
  const severities = given(filters.severity);
  if (severities !== undefined) checks.push((series) => severities.includes(series.last.severity));
  const clusterIds = given(filters.clusterId);
  if (clusterIds !== undefined) checks.push((series) => clusterIds.includes(clusterIdOf(series)));
  const clusterTypes = given(filters.clusterType);
  if (clusterTypes !== undefined) {
    checks.push((series) =>
      clusterTypes.includes(
        series.cluster === undefined ? 'RUBRIK_SAAS' : EVENT_CLUSTER_TYPES[series.cluster.type],
      ),
    );
  }
  // A workload's one ancestor in the simulator is its cluster.
  const ancestor = filters.ancestorId;
  if (ancestor != null) checks.push((series) => series.cluster?.id === ancestor);
  if (filters.objectName != null) {
    const name = filters.objectName;
    checks.push((series) => series.first.objectName === name);
  }
  const prefix = filters.objectNamePrefix?.toLowerCase();
  if (prefix) checks.push((series) => series.first.objectName.toLowerCase().startsWith(prefix));
  const needle = filters.searchTerm?.toLowerCase();
  if (needle) checks.push((series) => series.first.objectName.toLowerCase().includes(needle));
  return allOf(checks);
}

/** Newest update first by default; times newest first, words in alphabetical order. */
const SERIES_ORDERINGS: Orderings<Series> = {
  what: 'activity series',
  keys: {
    LAST_UPDATED: (series) => [series.last.time],
    START_TIME: (series) => [series.first.time],
    ACTIVITY_STATUS: (series) => [PUBLISHED_WORDS.eventStatus(series.last.status)],
    ACTIVITY_TYPE: (series) => [PUBLISHED_WORDS.eventType(series.last.type)],
    SEVERITY: (series) => [PUBLISHED_WORDS.eventSeverity(series.last.severity)],
    CLUSTER_NAME: (series) => [clusterNameOf(series)],
    // A workload's location is its cluster.
    LOCATION: (series) => [clusterNameOf(series)],
    OBJECT_NAME: (series) => [series.first.objectName],
    OBJECT_TYPE: (series) => [PUBLISHED_WORDS.eventObjectType(objectOf(series))],
  },
  defaultSortBy: 'LAST_UPDATED',
  defaultOrder: (sortBy) => (sortBy === 'LAST_UPDATED' || sortBy === 'START_TIME' ? 'DESC' : 'ASC'),
  tieBreak: (series) => series.key,
  presorted: 'LAST_UPDATED',
};

/** Activity series, from the same event log as the REST events. */
export const activityResolvers = {
  activitySeriesConnection(
    args: SortedConnectionArgs & { filters?: ActivitySeriesFilter | null },
    context: GraphqlContext,
  ) {
    requireGrant(context, 'VIEW_INVENTORY');
    const filter = seriesFilter(args.filters ?? {});
    const series = seriesByNow(context.state);
    return sortedConnection('activity-series', series, SERIES_ORDERINGS, args, filter, (one) =>
      seriesView(context.state, one),
    );
  },
};
