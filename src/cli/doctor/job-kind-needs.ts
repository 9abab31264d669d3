import type { DocumentNode } from 'graphql';
import type { JobKind } from '../../definitions/job-definition.js';
import { listActivitySeries } from '../../platform/graphql/activity-operations.js';
import { listClusters } from '../../platform/graphql/cluster-operations.js';
import { graphql } from '../../platform/graphql/schema/platform-graphql.js';
import {
  listServiceAccounts,
  rotateServiceAccountSecret,
} from '../../platform/graphql/service-account-operations.js';
import {
  getSlaDomain,
  listSlaDomains,
  pauseSla,
  slaPauseStatuses,
} from '../../platform/graphql/sla-operations.js';
import {
  mssqlSnapshotStatus,
  takeMssqlSnapshot,
  takeVsphereSnapshot,
  vsphereSnapshotStatus,
} from '../../platform/graphql/snapshot-operations.js';
import {
  listSnappables,
  listWorkloadSnapshots,
} from '../../platform/graphql/workload-operations.js';
import type { RestOperationId } from '../../platform/defaults/default-routes.js';
import { NOBODY } from './harmless-variables.js';

/**
 * A GraphQL operation a job kind needs, and how the doctor asks whether the account may use it
 * without changing anything: every probe names an object that does not exist, so a permitted
 * call finds nothing (404) and a refused one says what the account lacks (403). A platform that
 * looked the object up before the permission would pass a mutation probe it should fail:
 * `--allow-writes` settles that with one real snapshot and pause.
 */
export interface GraphqlNeed {
  /** The platform's operation (the root field) the probe asks about. */
  readonly operation: string;
  readonly probe: DocumentNode;
  readonly variables: Readonly<Record<string, unknown>>;
}

const PROBE_JOB = 'paw-doctor-probe';

const need = (
  operation: string,
  probe: DocumentNode,
  variables: Readonly<Record<string, unknown>> = {},
): GraphqlNeed => ({ operation, probe, variables });

const probeSnappables = graphql(`
  query doctorProbeSnappables {
    snappableConnection(first: 1) {
      count
    }
  }
`);
const probeSlaDomains = graphql(`
  query doctorProbeSlaDomains {
    slaDomains(first: 1) {
      count
    }
  }
`);
const probeActivity = graphql(`
  query doctorProbeActivity {
    activitySeriesConnection(first: 1) {
      count
    }
  }
`);
const probeVsphereStatus = graphql(`
  query doctorProbeVsphereStatus($clusterUuid: UUID!, $id: String!) {
    vSphereVMAsyncRequestStatus(clusterUuid: $clusterUuid, id: $id) {
      id
    }
  }
`);
const probeMssqlStatus = graphql(`
  query doctorProbeMssqlStatus($input: GetMssqlAsyncRequestStatusInput!) {
    mssqlJobStatus(input: $input) {
      id
    }
  }
`);
const probeVsphereSnapshot = graphql(`
  mutation doctorProbeVsphereSnapshot($input: VsphereOnDemandSnapshotInput!) {
    vsphereOnDemandSnapshot(input: $input) {
      __typename
    }
  }
`);
const probeMssqlSnapshot = graphql(`
  mutation doctorProbeMssqlSnapshot($input: CreateOnDemandMssqlBackupInput!) {
    createOnDemandMssqlBackup(input: $input) {
      __typename
    }
  }
`);
const probeSlaStatuses = graphql(`
  query doctorProbeSlaStatuses($slaId: UUID!) {
    globalSlaStatuses(SlaId: $slaId, first: 1) {
      count
    }
  }
`);
const probePauseSla = graphql(`
  mutation doctorProbePauseSla($input: PauseSlaInput!) {
    pauseSla(input: $input) {
      __typename
    }
  }
`);
const probeServiceAccounts = graphql(`
  query doctorProbeServiceAccounts {
    serviceAccounts(first: 1) {
      count
    }
  }
`);
const probeRotateSecret = graphql(`
  mutation doctorProbeRotateSecret($input: RotateServiceAccountSecretInput!) {
    rotateServiceAccountSecret(input: $input) {
      __typename
    }
  }
`);

/** What each job kind needs of the platform, and what to ask the administrator for. */
export const JOB_KIND_NEEDS: Readonly<
  Record<
    JobKind,
    {
      /** The rights, in words, for a fix that names the role to give. */
      readonly rights: string;
      /** Every GraphQL document paw sends for this kind's jobs: the doctor checks each against the account's schema. */
      readonly documents: readonly DocumentNode[];
      readonly graphql: readonly GraphqlNeed[];
      /** REST operations its jobs use (the read ones are probed). */
      readonly rest: readonly RestOperationId[];
    }
  >
> = {
  snapshot: {
    rights: 'read the inventory and take on-demand snapshots',
    documents: [
      listSnappables,
      listWorkloadSnapshots,
      takeVsphereSnapshot,
      takeMssqlSnapshot,
      vsphereSnapshotStatus,
      mssqlSnapshotStatus,
      listActivitySeries,
      listSlaDomains,
      getSlaDomain,
      slaPauseStatuses,
      listClusters,
    ],
    graphql: [
      need('snappableConnection', probeSnappables),
      need('slaDomains', probeSlaDomains),
      need('activitySeriesConnection', probeActivity),
      need('vSphereVMAsyncRequestStatus', probeVsphereStatus, {
        clusterUuid: NOBODY,
        id: PROBE_JOB,
      }),
      need('mssqlJobStatus', probeMssqlStatus, { input: { clusterUuid: NOBODY, id: PROBE_JOB } }),
      need('vsphereOnDemandSnapshot', probeVsphereSnapshot, { input: { id: NOBODY } }),
      need('createOnDemandMssqlBackup', probeMssqlSnapshot, { input: { id: NOBODY, config: {} } }),
    ],
    rest: [
      'listWorkloads',
      'getWorkload',
      'listWorkloadSnapshots',
      'takeSnapshot',
      'getSnapshotJobStatus',
      'listSlaDomains',
      'getSlaDomain',
      'listEvents',
    ],
  },
  'sla-window': {
    rights: 'read SLA Domains and pause and resume them',
    documents: [listSlaDomains, getSlaDomain, slaPauseStatuses, pauseSla],
    graphql: [
      need('slaDomains', probeSlaDomains),
      need('globalSlaStatuses', probeSlaStatuses, { slaId: NOBODY }),
      need('pauseSla', probePauseSla, {
        input: { slaId: NOBODY, clusterUuids: [NOBODY], pauseSla: false },
      }),
    ],
    rest: ['listSlaDomains', 'getSlaDomain', 'pauseSlaDomain', 'resumeSlaDomain'],
  },
  'rotate-secret': {
    rights: 'read and rotate service accounts',
    documents: [listServiceAccounts, rotateServiceAccountSecret],
    graphql: [
      need('serviceAccounts', probeServiceAccounts),
      need('rotateServiceAccountSecret', probeRotateSecret, { input: { id: NOBODY } }),
    ],
    rest: [],
  },
};
