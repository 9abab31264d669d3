import type { VariablesOf } from 'gql.tada';
import type { EventOperations } from '../api/platform-api.js';
import type { Paginated } from '../pagination/paginated.js';
import type { EventFilters, PlatformEvent } from '../records/platform-event.js';
import { listActivitySeries } from './activity-operations.js';
import type { GraphqlClient } from './graphql-client.js';
import { enumWord, paginateConnection } from './paginate-connection.js';

type ActivityFilterVariables = NonNullable<VariablesOf<typeof listActivitySeries>['filters']>;

/**
 * Activity through GraphQL (`activitySeriesConnection`), one event per series: its latest
 * status and update time. Filter words are sent as the schema's enums spell them
 * (`EventType`, `EventStatus`, `EventSeverity`); the platform judges a word it does not know.
 */
export class GraphqlEvents implements EventOperations {
  constructor(
    private readonly graphql: GraphqlClient,
    private readonly pageSize: number,
  ) {}

  list(filters: EventFilters = {}, signal?: AbortSignal): Paginated<PlatformEvent> {
    const list = (value: string | undefined, word: (v: string) => string = (v) => v) =>
      value === undefined ? undefined : [word(value)];
    const variables = Object.fromEntries(
      Object.entries({
        objectFid: list(filters.objectId),
        lastActivityType: list(filters.type, enumWord),
        lastActivityStatus: list(filters.status, enumWord),
        severity: list(filters.severity, enumWord),
        startTimeGt: filters.startTime,
        startTimeLt: filters.endTime,
      }).filter(([, value]) => value !== undefined),
    ) as ActivityFilterVariables;
    return paginateConnection({
      graphql: this.graphql,
      document: listActivitySeries,
      variables: { filters: variables },
      pageSize: this.pageSize,
      connection: (data) => data.activitySeriesConnection,
      map: (series): PlatformEvent => ({
        id: series.activitySeriesId,
        time: series.lastUpdated,
        type: series.lastActivityType,
        status: series.lastActivityStatus,
        severity: series.severity,
        objectId: series.fid,
        objectName: series.objectName,
        objectType: series.objectType,
        clusterId: series.clusterUuid,
        isOnDemand: series.isOnDemand,
        startTime: series.startTime,
        message: series.lastActivityMessage,
      }),
      signal,
    });
  }
}
