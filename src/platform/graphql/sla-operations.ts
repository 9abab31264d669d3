import { z } from 'zod';
import type { GraphqlOperation } from './graphql-client.js';
import { PAGE_INFO_SELECTION, connectionSchema } from './connection.js';

/** SLA Domains through GraphQL: list, get, per-cluster pause state, pause and resume. */
const slaDomainSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  description: z.string().nullish(),
  objectTypes: z.array(z.string()).nullish(),
  protectedObjectCount: z.number().nullish(),
});
export type GraphqlSlaDomain = z.output<typeof slaDomainSchema>;

const SLA_SELECTION =
  'id name ... on GlobalSlaReply { description objectTypes protectedObjectCount }';

export const listSlaDomains = {
  operationName: 'slaDomains',
  kind: 'query',
  document: /* GraphQL */ `
    query slaDomains($first: Int, $after: String, $filter: [GlobalSlaFilterInput!]) {
      slaDomains(first: $first, after: $after, filter: $filter) {
        nodes { ${SLA_SELECTION} }
        ${PAGE_INFO_SELECTION}
      }
    }
  `,
  data: z.looseObject({ slaDomains: connectionSchema(slaDomainSchema) }),
} as const satisfies GraphqlOperation<z.ZodType>;

export const getSlaDomain = {
  operationName: 'slaDomain',
  kind: 'query',
  document: /* GraphQL */ `
    query slaDomain($id: UUID!) {
      slaDomain(id: $id, shouldShowPausedClusters: true) { ${SLA_SELECTION} }
    }
  `,
  data: z.looseObject({ slaDomain: slaDomainSchema }),
} as const satisfies GraphqlOperation<z.ZodType>;

const slaStatusSchema = z.looseObject({
  cluster: z.looseObject({ id: z.string(), name: z.string().nullish() }),
  pauseStatus: z.string().nullish(),
});

export const slaPauseStatuses = {
  operationName: 'globalSlaStatuses',
  kind: 'query',
  document: /* GraphQL */ `
    query globalSlaStatuses($slaId: UUID!, $first: Int, $after: String) {
      globalSlaStatuses(SlaId: $slaId, first: $first, after: $after) {
        nodes { cluster { id name } pauseStatus }
        ${PAGE_INFO_SELECTION}
      }
    }
  `,
  data: z.looseObject({ globalSlaStatuses: connectionSchema(slaStatusSchema) }),
} as const satisfies GraphqlOperation<z.ZodType>;

export const pauseSla = {
  operationName: 'pauseSla',
  kind: 'mutation',
  document: /* GraphQL */ `
    mutation pauseSla($input: PauseSlaInput!) {
      pauseSla(input: $input) {
        success
      }
    }
  `,
  data: z.looseObject({ pauseSla: z.looseObject({ success: z.boolean() }) }),
} as const satisfies GraphqlOperation<z.ZodType>;
