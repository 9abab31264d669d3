import { z } from 'zod';
import type { GraphqlOperation } from './graphql-client.js';
import { PAGE_INFO_SELECTION, connectionSchema } from './connection.js';

/**
 * Activity series through GraphQL: one series per snapshot job (or configuration change),
 * never naming its job: a trigger is matched to its activity by workload, `isOnDemand` and time.
 */
const activitySeriesSchema = z.looseObject({
  id: z.union([z.string(), z.number()]).transform(String),
  activitySeriesId: z.string().min(1),
  objectId: z.string().nullish(),
  fid: z.string().nullish(),
  objectName: z.string().nullish(),
  objectType: z.string().nullish(),
  isOnDemand: z.boolean().nullish(),
  lastActivityType: z.string().nullish(),
  lastActivityStatus: z.string().nullish(),
  severity: z.string().nullish(),
  startTime: z.string().nullish(),
  lastUpdated: z.string().nullish(),
  clusterUuid: z.string().nullish(),
  lastActivityMessage: z.string().nullish(),
});
export type ActivitySeries = z.output<typeof activitySeriesSchema>;

export const listActivitySeries = {
  operationName: 'activitySeriesConnection',
  kind: 'query',
  document: /* GraphQL */ `
    query activitySeriesConnection($first: Int, $after: String, $filters: ActivitySeriesFilter) {
      activitySeriesConnection(first: $first, after: $after, filters: $filters) {
        nodes {
          id activitySeriesId objectId fid objectName objectType isOnDemand lastActivityType
          lastActivityStatus severity startTime lastUpdated clusterUuid lastActivityMessage
        }
        ${PAGE_INFO_SELECTION}
      }
    }
  `,
  data: z.looseObject({ activitySeriesConnection: connectionSchema(activitySeriesSchema) }),
} as const satisfies GraphqlOperation<z.ZodType>;
