import { pageFields } from './connection.js';
import { graphql } from './schema/platform-graphql.js';

/** Clusters through GraphQL; the schema calls the connection state `status`. */
export const listClusters = graphql(
  `
    query clusterConnection($first: Int, $after: String, $filter: ClusterFilterInput) {
      clusterConnection(first: $first, after: $after, filter: $filter) {
        count
        nodes {
          id
          name
          type
          version
          status
        }
        pageInfo {
          ...PageFields
        }
      }
    }
  `,
  [pageFields],
);
