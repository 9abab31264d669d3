import type { ResultOf } from 'gql.tada';
import { pageFields } from './connection.js';
import { graphql } from './schema/platform-graphql.js';

/**
 * Workloads ("snappables") and their snapshots through GraphQL (docs/platform-model.md,
 * "GraphQL: the operations of paw's jobs"). `fid` is the platform-wide id the snapshot
 * mutations take; the cluster UUID the status queries need comes from `cluster { id }`.
 */
export const listSnappables = graphql(
  `
    query snappableConnection($first: Int, $after: String, $filter: SnappableFilterInput) {
      snappableConnection(first: $first, after: $after, filter: $filter) {
        count
        nodes {
          id
          fid
          name
          objectType
          cluster {
            id
            name
          }
          slaDomain {
            id
            name
          }
        }
        pageInfo {
          ...PageFields
        }
      }
    }
  `,
  [pageFields],
);
export type Snappable = ResultOf<typeof listSnappables>['snappableConnection']['nodes'][number];

/**
 * A workload's snapshots, newest first (the window logic reads them in that order). The
 * retention SLA Domain is on the implementations of `GenericSnapshot`, not on the interface.
 */
export const listWorkloadSnapshots = graphql(
  `
    query snapshotOfASnappableConnection($workloadId: String!, $first: Int, $after: String) {
      snapshotOfASnappableConnection(
        workloadId: $workloadId
        first: $first
        after: $after
        sortBy: CREATION_TIME
        sortOrder: DESC
      ) {
        count
        nodes {
          __typename
          id
          date
          isOnDemandSnapshot
          expirationDate
          ... on CdmSnapshot {
            slaDomain {
              id
            }
          }
          ... on PolarisSnapshot {
            slaDomain {
              id
            }
          }
        }
        pageInfo {
          ...PageFields
        }
      }
    }
  `,
  [pageFields],
);
export type GenericSnapshot = ResultOf<
  typeof listWorkloadSnapshots
>['snapshotOfASnappableConnection']['nodes'][number];
