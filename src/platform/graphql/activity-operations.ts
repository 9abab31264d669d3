import type { ResultOf } from 'gql.tada';
import { pageFields } from './connection.js';
import { graphql } from './schema/platform-graphql.js';

/**
 * Activity series through GraphQL, newest first: one series per snapshot job (or configuration
 * change), never naming its job: a trigger is matched to its activity by workload, `isOnDemand`
 * and time. A repeated poll asks only for what changed since (`lastUpdatedTimeGt`).
 */
export const listActivitySeries = graphql(
  `
    query activitySeriesConnection($first: Int, $after: String, $filters: ActivitySeriesFilter) {
      activitySeriesConnection(
        first: $first
        after: $after
        filters: $filters
        sortBy: START_TIME
        sortOrder: DESC
      ) {
        count
        nodes {
          id
          activitySeriesId
          objectId
          fid
          objectName
          objectType
          isOnDemand
          lastActivityType
          lastActivityStatus
          severity
          startTime
          lastUpdated
          clusterUuid
          lastActivityMessage
        }
        pageInfo {
          ...PageFields
        }
      }
    }
  `,
  [pageFields],
);
export type ActivitySeries = ResultOf<
  typeof listActivitySeries
>['activitySeriesConnection']['nodes'][number];
