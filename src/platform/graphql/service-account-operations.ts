import type { ResultOf } from 'gql.tada';
import { pageFields } from './connection.js';
import { graphql } from './schema/platform-graphql.js';

/**
 * The five service-account operations of spec 4.3, as constant documents whose inputs travel as
 * variables. Selections follow the published types (the spec's "the service" field is `roles`;
 * there is no `id`, the uuid inside `clientId` is the account's id). A rotation also says which
 * quorum-authorization policies it suspended.
 */
export const listServiceAccounts = graphql(
  `
    query serviceAccounts($first: Int, $after: String) {
      serviceAccounts(first: $first, after: $after) {
        count
        nodes {
          clientId
          name
          description
          integrationId
          integrationName
          lastLogin
          roles {
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
export type ServiceAccount = ResultOf<
  typeof listServiceAccounts
>['serviceAccounts']['nodes'][number];

export const createServiceAccount = graphql(`
  mutation createServiceAccount($input: CreateServiceAccountInput!) {
    createServiceAccount(input: $input) {
      clientId
      clientSecret
      accessTokenUri
      name
    }
  }
`);

export const rotateServiceAccountSecret = graphql(`
  mutation rotateServiceAccountSecret($input: RotateServiceAccountSecretInput!) {
    rotateServiceAccountSecret(input: $input) {
      clientId
      clientSecret
      accessTokenUri
      name
      suspendedTprPolicyIds
    }
  }
`);

export const updateRoleAssignments = graphql(`
  mutation updateRoleAssignments($userIds: [String!], $roleIds: [String!]!) {
    updateRoleAssignments(userIds: $userIds, roleIds: $roleIds)
  }
`);

export const deleteServiceAccounts = graphql(`
  mutation deleteServiceAccountsFromAccount($input: DeleteServiceAccountsFromAccountInput!) {
    deleteServiceAccountsFromAccount(input: $input)
  }
`);
