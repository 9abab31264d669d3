/**
 * Every operation the simulator serves, by the name that faults, statistics and logs use.
 * The task-based REST ones are the operationIds of docs/platform-model.md (and of the served
 * OpenAPI document); the others are named here because the platform publishes no names for them.
 */
export const REST_OPERATION_IDS = [
  'listWorkloads',
  'getWorkload',
  'listWorkloadSnapshots',
  'takeSnapshot',
  'getSnapshotJobStatus',
  'listSlaDomains',
  'createSlaDomain',
  'getSlaDomain',
  'updateSlaDomain',
  'deleteSlaDomain',
  'assignSlaDomain',
  'removeProtection',
  'pauseSlaDomain',
  'resumeSlaDomain',
  'listClusters',
  'listEvents',
] as const;

/** Platform operations outside the task-based REST interface. */
const PLATFORM_OPERATION_IDS = [
  'createClientToken',
  'deleteSession',
  'graphql',
  'oauthAuthorize',
  'oauthToken',
] as const;

/** Operations served by each cluster on its own origin. */
const CLUSTER_OPERATION_IDS = [
  'createServiceAccountSession',
  'createPersonalAccessTokenSession',
  'deleteClusterSession',
  'getClusterVersion',
  'getCluster',
  'getClusterSnapshotJob',
] as const;

export const OPERATION_IDS = [
  ...REST_OPERATION_IDS,
  ...PLATFORM_OPERATION_IDS,
  ...CLUSTER_OPERATION_IDS,
] as const;

export type RestOperationId = (typeof REST_OPERATION_IDS)[number];
export type OperationId = (typeof OPERATION_IDS)[number];
