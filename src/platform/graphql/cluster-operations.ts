import { z } from 'zod';
import type { GraphqlOperation } from './graphql-client.js';
import { PAGE_INFO_SELECTION, connectionSchema } from './connection.js';

const clusterSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  type: z.string().nullish(),
  version: z.string().nullish(),
  status: z.string().nullish(),
});

/** Clusters through GraphQL; the schema calls the connection state `status`. */
export const listClusters = {
  operationName: 'clusterConnection',
  kind: 'query',
  document: /* GraphQL */ `
    query clusterConnection($first: Int, $after: String, $filter: ClusterFilterInput) {
      clusterConnection(first: $first, after: $after, filter: $filter) {
        nodes { id name type version status }
        ${PAGE_INFO_SELECTION}
      }
    }
  `,
  data: z.looseObject({ clusterConnection: connectionSchema(clusterSchema) }),
} as const satisfies GraphqlOperation<z.ZodType>;
