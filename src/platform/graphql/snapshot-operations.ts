import { graphql } from './schema/platform-graphql.js';

/**
 * On-demand snapshots and their status through GraphQL: one mutation and one status query per
 * kind the platform snapshots on demand. The mutations take the workload's FID, the retention
 * SLA Domain (`slaId`) when there is one and a note naming paw and the run; they answer an
 * `AsyncRequestStatus`, whose `id` the status query takes together with the workload's cluster
 * UUID.
 */
const asyncRequestFields = graphql(`
  fragment AsyncRequestFields on AsyncRequestStatus {
    id
    status
    progress
    startTime
    endTime
    nodeId
    error {
      message
    }
    links {
      href
      rel
    }
  }
`);

export const takeVsphereSnapshot = graphql(
  `
    mutation vsphereOnDemandSnapshot($input: VsphereOnDemandSnapshotInput!) {
      vsphereOnDemandSnapshot(input: $input) {
        ...AsyncRequestFields
      }
    }
  `,
  [asyncRequestFields],
);

export const takeMssqlSnapshot = graphql(
  `
    mutation createOnDemandMssqlBackup($input: CreateOnDemandMssqlBackupInput!) {
      createOnDemandMssqlBackup(input: $input) {
        ...AsyncRequestFields
      }
    }
  `,
  [asyncRequestFields],
);

export const vsphereSnapshotStatus = graphql(
  `
    query vSphereVMAsyncRequestStatus($clusterUuid: UUID!, $id: String!) {
      vSphereVMAsyncRequestStatus(clusterUuid: $clusterUuid, id: $id) {
        ...AsyncRequestFields
      }
    }
  `,
  [asyncRequestFields],
);

export const mssqlSnapshotStatus = graphql(
  `
    query mssqlJobStatus($input: GetMssqlAsyncRequestStatusInput!) {
      mssqlJobStatus(input: $input) {
        ...AsyncRequestFields
      }
    }
  `,
  [asyncRequestFields],
);
