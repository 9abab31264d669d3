import { z } from 'zod';
import { snapshotJobRecordSchema } from '../jobs/snapshot-job.js';
import type { GraphqlOperation } from './graphql-client.js';

/**
 * On-demand snapshots and their status through GraphQL: one mutation and one status query per
 * kind the platform snapshots on demand. The mutations take the workload's FID and always the
 * retention SLA Domain (`slaId`) when there is one; they answer an `AsyncRequestStatus`, whose
 * `id` the status query takes together with the workload's cluster UUID.
 */
const ASYNC_REQUEST_SELECTION =
  'id status progress startTime endTime nodeId error { message } links { href rel }';

export const takeVsphereSnapshot = {
  operationName: 'vsphereOnDemandSnapshot',
  kind: 'mutation',
  document: /* GraphQL */ `
    mutation vsphereOnDemandSnapshot($input: VsphereOnDemandSnapshotInput!) {
      vsphereOnDemandSnapshot(input: $input) { ${ASYNC_REQUEST_SELECTION} }
    }
  `,
  data: z.looseObject({ vsphereOnDemandSnapshot: snapshotJobRecordSchema }),
} as const satisfies GraphqlOperation<z.ZodType>;

export const takeMssqlSnapshot = {
  operationName: 'createOnDemandMssqlBackup',
  kind: 'mutation',
  document: /* GraphQL */ `
    mutation createOnDemandMssqlBackup($input: CreateOnDemandMssqlBackupInput!) {
      createOnDemandMssqlBackup(input: $input) { ${ASYNC_REQUEST_SELECTION} }
    }
  `,
  data: z.looseObject({ createOnDemandMssqlBackup: snapshotJobRecordSchema }),
} as const satisfies GraphqlOperation<z.ZodType>;

export const vsphereSnapshotStatus = {
  operationName: 'vSphereVMAsyncRequestStatus',
  kind: 'query',
  document: /* GraphQL */ `
    query vSphereVMAsyncRequestStatus($clusterUuid: UUID!, $id: String!) {
      vSphereVMAsyncRequestStatus(clusterUuid: $clusterUuid, id: $id) { ${ASYNC_REQUEST_SELECTION} }
    }
  `,
  data: z.looseObject({ vSphereVMAsyncRequestStatus: snapshotJobRecordSchema }),
} as const satisfies GraphqlOperation<z.ZodType>;

export const mssqlSnapshotStatus = {
  operationName: 'mssqlJobStatus',
  kind: 'query',
  document: /* GraphQL */ `
    query mssqlJobStatus($input: MssqlJobStatusInput!) {
      mssqlJobStatus(input: $input) { ${ASYNC_REQUEST_SELECTION} }
    }
  `,
  data: z.looseObject({ mssqlJobStatus: snapshotJobRecordSchema }),
} as const satisfies GraphqlOperation<z.ZodType>;
