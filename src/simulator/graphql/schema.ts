import { buildSchema, type GraphQLSchema } from 'graphql';

/**
 * The part of the platform's GraphQL schema that service-account management uses, with the real
 * types (platform-facts.md): `ServiceAccount` has no `id` (the uuid inside `clientId` is its id)
 * and "the service" of the spec is its `roles`.
 */
export const SCHEMA_SDL = /* GraphQL */ `
  "A 64-bit integer."
  scalar Long
  "An ISO 8601 UTC timestamp."
  scalar DateTime

  type Role {
    id: String!
    name: String!
    description: String!
  }

  type ServiceAccount {
    clientId: String!
    name: String!
    description: String!
    integrationId: Long
    integrationName: String
    lastLogin: DateTime
    roles: [Role!]!
  }

  type PageInfo {
    startCursor: String
    endCursor: String
    hasNextPage: Boolean!
    hasPreviousPage: Boolean!
  }

  type ServiceAccountEdge {
    cursor: String!
    node: ServiceAccount!
  }

  type ServiceAccountConnection {
    count: Int!
    nodes: [ServiceAccount!]!
    edges: [ServiceAccountEdge!]!
    pageInfo: PageInfo!
  }

  enum ServiceAccountSortByField {
    NAME
    LAST_LOGIN
  }

  enum SortOrder {
    ASC
    DESC
  }

  input CreateServiceAccountInput {
    name: String!
    description: String
    roleIds: [String!]!
  }

  type CreateServiceAccountReply {
    clientId: String!
    clientSecret: String!
    accessTokenUri: String!
    name: String!
  }

  input RotateServiceAccountSecretInput {
    "The account's uuid (the part of clientId after client|)."
    id: String!
  }

  type RotateServiceAccountSecretReply {
    clientId: String!
    clientSecret: String!
    accessTokenUri: String!
    name: String!
    suspendedTprPolicyIds: [String!]!
  }

  input DeleteServiceAccountsFromAccountInput {
    ids: [String!]!
  }

  type Query {
    "At most 1000 per page."
    serviceAccounts(
      first: Int
      after: String
      searchText: String
      roleIds: [String!]
      sortBy: ServiceAccountSortByField
      sortOrder: SortOrder
    ): ServiceAccountConnection!
  }

  type Mutation {
    createServiceAccount(input: CreateServiceAccountInput!): CreateServiceAccountReply!
    rotateServiceAccountSecret(
      input: RotateServiceAccountSecretInput!
    ): RotateServiceAccountSecretReply!
    "Overwrites the roles of the given users and service accounts."
    updateRoleAssignments(userIds: [String!], groupIds: [String!], roleIds: [String!]!): Boolean!
    deleteServiceAccountsFromAccount(input: DeleteServiceAccountsFromAccountInput!): Boolean!
  }
`;

let built: GraphQLSchema | undefined;

/** The executable schema (built once per process; resolvers come with each request's root value). */
export function platformSchema(): GraphQLSchema {
  built ??= buildSchema(SCHEMA_SDL);
  return built;
}
