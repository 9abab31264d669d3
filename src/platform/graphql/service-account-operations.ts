import { z } from 'zod';
import { Secret } from '../../config/secret.js';
import type { GraphqlOperation } from './graphql-client.js';

/**
 * The five service-account operations of spec 4.3, as constant documents whose inputs travel as
 * variables. Selections follow the real types in platform-facts.md (the spec's "the service"
 * field is `roles`; there is no `id`, the uuid inside `clientId` is the account's id).
 */

const roleSchema = z.looseObject({ id: z.string(), name: z.string().nullish() });

const serviceAccountSchema = z.looseObject({
  clientId: z.string().min(1),
  name: z.string(),
  description: z.string().nullish(),
  integrationId: z.union([z.number(), z.string()]).nullish(),
  integrationName: z.string().nullish(),
  lastLogin: z.string().nullish(),
  roles: z.array(roleSchema).nullish(),
});
export type ServiceAccount = z.output<typeof serviceAccountSchema>;

/** A new or rotated secret: wrapped in a Secret the moment it is parsed. */
const issuedCredentialsSchema = z
  .looseObject({
    clientId: z.string().min(1),
    clientSecret: z.string().min(1),
    accessTokenUri: z.string().nullish(),
    name: z.string().nullish(),
  })
  .transform((reply) => ({
    clientId: reply.clientId,
    clientSecret: new Secret(reply.clientSecret),
    accessTokenUri: reply.accessTokenUri ?? undefined,
    name: reply.name ?? undefined,
  }));
export type IssuedCredentials = z.output<typeof issuedCredentialsSchema>;

export const listServiceAccounts = {
  operationName: 'serviceAccounts',
  kind: 'query',
  document: /* GraphQL */ `
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
          endCursor
          hasNextPage
        }
      }
    }
  `,
  data: z.object({
    serviceAccounts: z.looseObject({
      count: z.number().int().nullish(),
      nodes: z.array(serviceAccountSchema),
      pageInfo: z.looseObject({ endCursor: z.string().nullish(), hasNextPage: z.boolean() }),
    }),
  }),
} as const satisfies GraphqlOperation<z.ZodType>;

export const createServiceAccount = {
  operationName: 'createServiceAccount',
  kind: 'mutation',
  document: /* GraphQL */ `
    mutation createServiceAccount($input: CreateServiceAccountInput!) {
      createServiceAccount(input: $input) {
        clientId
        clientSecret
        accessTokenUri
        name
      }
    }
  `,
  data: z.object({ createServiceAccount: issuedCredentialsSchema }),
} as const satisfies GraphqlOperation<z.ZodType>;

export const rotateServiceAccountSecret = {
  operationName: 'rotateServiceAccountSecret',
  kind: 'mutation',
  document: /* GraphQL */ `
    mutation rotateServiceAccountSecret($input: RotateServiceAccountSecretInput!) {
      rotateServiceAccountSecret(input: $input) {
        clientId
        clientSecret
        accessTokenUri
        name
      }
    }
  `,
  data: z.object({ rotateServiceAccountSecret: issuedCredentialsSchema }),
} as const satisfies GraphqlOperation<z.ZodType>;

export const updateRoleAssignments = {
  operationName: 'updateRoleAssignments',
  kind: 'mutation',
  document: /* GraphQL */ `
    mutation updateRoleAssignments($userIds: [String!], $roleIds: [String!]!) {
      updateRoleAssignments(userIds: $userIds, roleIds: $roleIds)
    }
  `,
  data: z.object({ updateRoleAssignments: z.unknown() }),
} as const satisfies GraphqlOperation<z.ZodType>;

export const deleteServiceAccounts = {
  operationName: 'deleteServiceAccountsFromAccount',
  kind: 'mutation',
  document: /* GraphQL */ `
    mutation deleteServiceAccountsFromAccount($input: DeleteServiceAccountsFromAccountInput!) {
      deleteServiceAccountsFromAccount(input: $input)
    }
  `,
  data: z.object({ deleteServiceAccountsFromAccount: z.unknown() }),
} as const satisfies GraphqlOperation<z.ZodType>;
