import { createHash } from 'node:crypto';
import { isoTime } from '../clock.js';
import type { SimCluster, SimEvent } from '../records.js';
import { SimVocabulary, type ActivityObject } from '../sim-vocabulary.js';
import type { SimulatorState } from '../simulator-state.js';
import { connection } from './connection.js';
import { requireGrant, type GraphqlContext } from './graphql-context.js';

const SCHEMA_WORDS = new SimVocabulary('graphql');

interface ActivitySeriesFilter {
  readonly objectFid?: readonly string[] | null;
  readonly objectType?: readonly string[] | null;
  readonly lastActivityType?: readonly string[] | null;
  readonly lastActivityStatus?: readonly string[] | null;
  readonly severity?: readonly string[] | null;
  readonly startTimeGt?: string | null;
  readonly startTimeLt?: string | null;
  readonly clusterUuid?: readonly string[] | null;
}

/** One activity series: the events of one snapshot job, or one configuration change. */
interface Series {
  readonly key: string;
  readonly first: SimEvent;
  last: SimEvent;
}

/** A stable UUID for a series, from what identifies it (its job, or its one event). */
function seriesUuid(key: string): string {
  const hex = createHash('sha1').update(key).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The activity series by now, newest update first (built from the event log on each read). */
function seriesByNow(state: SimulatorState): Series[] {
  const byKey = new Map<string, Series>();
  for (const event of state.events.happened()) {
    const key = event.jobId ?? `event:${event.id}`;
    const series = byKey.get(key);
    if (series === undefined) byKey.set(key, { key, first: event, last: event });
    else series.last = event;
  }
  return [...byKey.values()].sort(
    (a, b) => b.last.time - a.last.time || (a.key < b.key ? 1 : a.key > b.key ? -1 : 0),
  );
}

function seriesView(state: SimulatorState, series: Series) {
  const { first, last } = series;
  const cluster = first.clusterId === null ? undefined : state.inventory.cluster(first.clusterId);
  return {
    id: first.id,
    activitySeriesId: seriesUuid(series.key),
    objectId: first.objectId,
    fid: first.objectType === 'SLA_DOMAIN' ? null : first.objectId,
    objectName: first.objectName,
    objectType: SCHEMA_WORDS.eventObjectType(first.objectType as ActivityObject),
    isOnDemand: first.jobId !== null,
    lastActivityType: SCHEMA_WORDS.eventType(last.type),
    lastActivityStatus: SCHEMA_WORDS.eventStatus(last.status),
    severity: last.severity,
    startTime: isoTime(first.time),
    lastUpdated: isoTime(last.time),
    clusterUuid: first.clusterId,
    clusterName: cluster?.name ?? null,
    lastActivityMessage: last.message,
  };
}

/** Clusters and activity series, from the same stores as the REST routes. */
export const clusterAndActivityResolvers = {
  clusterConnection(
    args: {
      first?: number | null;
      after?: string | null;
      filter?: {
        name?: readonly string[] | null;
        type?: readonly string[] | null;
        connectionState?: readonly string[] | null;
      } | null;
    },
    context: GraphqlContext,
  ) {
    requireGrant(context, 'VIEW_INVENTORY');
    const clusters = context.state.inventory.clusters;
    const names = args.filter?.name?.map((name) => name.toLowerCase());
    const types = args.filter?.type;
    const states = args.filter?.connectionState;
    return connection(
      {
        list: 'clusters',
        length: clusters.length,
        at: (index) => clusters[index] as SimCluster,
        keyOf: (cluster) => [cluster.name, cluster.id],
        filter: (cluster) =>
          (names == null || names.some((name) => cluster.name.toLowerCase().includes(name))) &&
          (types == null || types.includes(cluster.type)) &&
          (states == null || states.includes(cluster.connectionState)),
        first: args.first,
        after: args.after,
      },
      (cluster) => ({
        id: cluster.id,
        name: cluster.name,
        type: cluster.type,
        version: cluster.version,
        status: cluster.connectionState,
      }),
    );
  },

  activitySeriesConnection(
    args: { first?: number | null; after?: string | null; filters?: ActivitySeriesFilter | null },
    context: GraphqlContext,
  ) {
    requireGrant(context, 'VIEW_INVENTORY');
    const { state } = context;
    const filters = args.filters ?? {};
    const objects = filters.objectType?.map((word) => SCHEMA_WORDS.parseActivityObject(word));
    const types = filters.lastActivityType?.map((word) => SCHEMA_WORDS.parseEventType(word));
    const statuses = filters.lastActivityStatus?.map((word) => SCHEMA_WORDS.parseEventStatus(word));
    const after = filters.startTimeGt == null ? undefined : Date.parse(filters.startTimeGt);
    const before = filters.startTimeLt == null ? undefined : Date.parse(filters.startTimeLt);
    const series = seriesByNow(state);
    return connection(
      {
        list: 'activity-series',
        length: series.length,
        at: (index) => series[index] as Series,
        keyOf: (entry) => [entry.last.time, entry.key],
        descending: true,
        filter: (entry) =>
          (filters.objectFid == null || filters.objectFid.includes(entry.first.objectId)) &&
          (objects == null || objects.includes(entry.first.objectType as ActivityObject)) &&
          (types == null || types.includes(entry.last.type)) &&
          (statuses == null || statuses.includes(entry.last.status)) &&
          (filters.severity == null || filters.severity.includes(entry.last.severity)) &&
          (after === undefined || entry.first.time > after) &&
          (before === undefined || entry.first.time < before) &&
          (filters.clusterUuid == null ||
            (entry.first.clusterId !== null &&
              filters.clusterUuid.includes(entry.first.clusterId))),
        first: args.first,
        after: args.after,
      },
      (entry) => seriesView(state, entry),
    );
  },
};
