import { z } from 'zod';
import type { GraphqlOperation } from './graphql-client.js';
import { PAGE_INFO_SELECTION, connectionSchema } from './connection.js';

/**
 * Workloads ("snappables") and their snapshots through GraphQL (docs/platform-model.md,
 * "GraphQL: the operations of paw's jobs"). `fid` is the platform-wide id the snapshot
 * mutations take; the cluster UUID the status queries need comes from `cluster { id }`.
 */
const snappableSchema = z.looseObject({
  id: z.string().min(1),
  fid: z.string().nullish(),
  name: z.string(),
  objectType: z.string(),
  cluster: z.looseObject({ id: z.string(), name: z.string().nullish() }).nullish(),
  slaDomain: z.looseObject({ id: z.string(), name: z.string().nullish() }).nullish(),
});
export type Snappable = z.output<typeof snappableSchema>;

const SNAPPABLE_SELECTION = 'id fid name objectType cluster { id name } slaDomain { id name }';

export const listSnappables = {
  operationName: 'snappableConnection',
  kind: 'query',
  document: /* GraphQL */ `
    query snappableConnection($first: Int, $after: String, $filter: SnappableFilterInput) {
      snappableConnection(first: $first, after: $after, filter: $filter) {
        nodes { ${SNAPPABLE_SELECTION} }
        ${PAGE_INFO_SELECTION}
      }
    }
  `,
  data: z.looseObject({ snappableConnection: connectionSchema(snappableSchema) }),
} as const satisfies GraphqlOperation<z.ZodType>;

const genericSnapshotSchema = z.looseObject({
  id: z.string().min(1),
  date: z.string().nullish(),
  isOnDemandSnapshot: z.boolean().nullish(),
  expirationDate: z.string().nullish(),
  slaDomain: z.looseObject({ id: z.string() }).nullish(),
});
export type GenericSnapshot = z.output<typeof genericSnapshotSchema>;

export const listWorkloadSnapshots = {
  operationName: 'snapshotOfASnappableConnection',
  kind: 'query',
  document: /* GraphQL */ `
    query snapshotOfASnappableConnection($workloadId: String!, $first: Int, $after: String) {
      snapshotOfASnappableConnection(workloadId: $workloadId, first: $first, after: $after) {
        nodes { id date isOnDemandSnapshot expirationDate slaDomain { id } }
        ${PAGE_INFO_SELECTION}
      }
    }
  `,
  data: z.looseObject({ snapshotOfASnappableConnection: connectionSchema(genericSnapshotSchema) }),
} as const satisfies GraphqlOperation<z.ZodType>;
