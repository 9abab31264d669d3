import type { JobKind } from '../definitions/job-definition.js';
import type { RestOperationId } from '../platform-defaults/default-routes.js';

/**
 * A GraphQL operation a job kind needs, and how the doctor asks whether the account may use it
 * without changing anything: every probe names an object that does not exist, so a permitted
 * call finds nothing (404) and a refused one says what the account lacks (403). A platform that
 * looked the object up before the permission would pass a mutation probe it should fail:
 * `--allow-writes` settles that with one real snapshot and pause.
 */
export interface GraphqlNeed {
  readonly operation: string;
  readonly kind: 'query' | 'mutation';
  readonly document: string;
  readonly variables: Readonly<Record<string, unknown>>;
}

/** An id no object has: probes that find nothing prove the operation answers. */
const NOBODY = '00000000-0000-4000-8000-000000000000';

const query = (operation: string, document: string, variables = {}): GraphqlNeed => ({
  operation,
  kind: 'query',
  document,
  variables,
});
const mutation = (
  operation: string,
  inputType: string,
  input: Readonly<Record<string, unknown>>,
): GraphqlNeed => ({
  operation,
  kind: 'mutation',
  document: `mutation doctorProbe($input: ${inputType}!) { ${operation}(input: $input) { __typename } }`,
  variables: { input },
});

/** What each job kind needs of the platform, and what to ask the administrator for. */
export const JOB_KIND_NEEDS: Readonly<
  Record<
    JobKind,
    {
      /** The rights, in words, for a fix that names the role to give. */
      readonly rights: string;
      readonly graphql: readonly GraphqlNeed[];
      /** REST operations its jobs use (the read ones are probed). */
      readonly rest: readonly RestOperationId[];
    }
  >
> = {
  snapshot: {
    rights: 'read the inventory and take on-demand snapshots',
    graphql: [
      query('snappableConnection', 'query { snappableConnection(first: 1) { count } }'),
      query('slaDomains', 'query { slaDomains(first: 1) { count } }'),
      query('activitySeriesConnection', 'query { activitySeriesConnection(first: 1) { count } }'),
      query(
        'vSphereVMAsyncRequestStatus',
        'query doctorProbe($id: String!) { vSphereVMAsyncRequestStatus(clusterUuid: "' +
          NOBODY +
          '", id: $id) { id } }',
        { id: 'paw-doctor-probe' },
      ),
      query(
        'mssqlJobStatus',
        'query doctorProbe($input: MssqlJobStatusInput!) { mssqlJobStatus(input: $input) { id } }',
        { input: { clusterUuid: NOBODY, id: 'paw-doctor-probe' } },
      ),
      mutation('vsphereOnDemandSnapshot', 'VsphereOnDemandSnapshotInput', { id: NOBODY }),
      mutation('createOnDemandMssqlBackup', 'CreateOnDemandMssqlBackupInput', {
        id: NOBODY,
        config: {},
      }),
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
    graphql: [
      query('slaDomains', 'query { slaDomains(first: 1) { count } }'),
      query(
        'globalSlaStatuses',
        `query { globalSlaStatuses(SlaId: "${NOBODY}", first: 1) { count } }`,
      ),
      mutation('pauseSla', 'PauseSlaInput', {
        slaId: NOBODY,
        clusterUuids: [NOBODY],
        pauseSla: false,
      }),
    ],
    rest: ['listSlaDomains', 'getSlaDomain', 'pauseSlaDomain', 'resumeSlaDomain'],
  },
  'rotate-secret': {
    rights: 'read and rotate service accounts',
    graphql: [
      query('serviceAccounts', 'query { serviceAccounts(first: 1) { count } }'),
      mutation('rotateServiceAccountSecret', 'RotateServiceAccountSecretInput', { id: NOBODY }),
    ],
    rest: [],
  },
};
