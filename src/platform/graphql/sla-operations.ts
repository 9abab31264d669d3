import type { ResultOf } from 'gql.tada';
import { pageFields } from './connection.js';
import { graphql } from './schema/platform-graphql.js';

/**
 * SLA Domains through GraphQL: list and get (each with the clusters it is paused on, in the
 * same call), the per-cluster pause state with who paused and why, pause and resume.
 * `slaDomains` lists global SLA Domains (`GlobalSlaReply`) and cluster-local ones
 * (`ClusterSlaDomain`, created on one cluster) together: only the `SlaDomain` interface's
 * fields are common to both, so everything else is asked of each in its own fragment.
 */
const slaDomainFields = graphql(`
  fragment SlaDomainFields on SlaDomain {
    __typename
    id
    name
    ... on GlobalSlaReply {
      description
      objectTypes
      protectedObjectCount
      pausedClustersInfo {
        pausedClustersCount
        pausedClusters {
          id
          name
        }
      }
    }
    ... on ClusterSlaDomain {
      protectedObjectCount
      cluster {
        id
        name
      }
    }
  }
`);

export const listSlaDomains = graphql(
  `
    query slaDomains($first: Int, $after: String, $filter: [GlobalSlaFilterInput!]) {
      slaDomains(
        first: $first
        after: $after
        filter: $filter
        shouldShowPausedClusters: true
        shouldShowProtectedObjectCount: true
      ) {
        count
        nodes {
          ...SlaDomainFields
        }
        pageInfo {
          ...PageFields
        }
      }
    }
  `,
  [slaDomainFields, pageFields],
);
export type GraphqlSlaDomain = ResultOf<typeof listSlaDomains>['slaDomains']['nodes'][number];

export const getSlaDomain = graphql(
  `
    query slaDomain($id: UUID!) {
      slaDomain(id: $id, shouldShowPausedClusters: true) {
        ...SlaDomainFields
      }
    }
  `,
  [slaDomainFields],
);

export const slaPauseStatuses = graphql(
  `
    query globalSlaStatuses($slaId: UUID!, $first: Int, $after: String) {
      globalSlaStatuses(SlaId: $slaId, first: $first, after: $after) {
        count
        nodes {
          cluster {
            id
            name
          }
          pauseStatus
          pausedSlaInfo {
            pausedBy
            pauseNote
            pauseStartDate
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

export const pauseSla = graphql(`
  mutation pauseSla($input: PauseSlaInput!) {
    pauseSla(input: $input) {
      success
    }
  }
`);
