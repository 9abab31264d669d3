/**
 * The fields of the platform's published GraphQL schema that paw sends documents for and that
 * the simulator serves, by type. `npm run schema:refresh` copies exactly these from a published
 * schema (or an account's introspection) into `platform-schema.graphql`, with every argument of
 * each field, and every input type, enum and scalar they reach in full; nothing else is written
 * by hand. A name the published schema lacks stops the refresh.
 *
 * An interface's implementations come in only where listed here, and each gets the interface's
 * listed fields. To use a new field in a document: list it here, refresh, and have the simulator
 * answer it (its schema test fails until it does).
 */
export const SCHEMA_FIELDS: Readonly<Record<string, readonly string[]>> = {
  Query: [
    'activitySeriesConnection',
    'clusterConnection',
    'globalSlaStatuses',
    'mssqlJobStatus',
    'serviceAccounts',
    'slaDomain',
    'slaDomains',
    'snappableConnection',
    'snapshotOfASnappableConnection',
    'vSphereVMAsyncRequestStatus',
  ],
  Mutation: [
    'createOnDemandMssqlBackup',
    'createServiceAccount',
    'deleteServiceAccountsFromAccount',
    'pauseSla',
    'rotateServiceAccountSecret',
    'updateRoleAssignments',
    'vsphereOnDemandSnapshot',
  ],

  PageInfo: ['endCursor', 'hasNextPage', 'hasPreviousPage', 'startCursor'],

  ServiceAccountConnection: ['count', 'edges', 'nodes', 'pageInfo'],
  ServiceAccountEdge: ['cursor', 'node'],
  ServiceAccount: [
    'clientId',
    'description',
    'integrationId',
    'integrationName',
    'lastLogin',
    'name',
    'roles',
  ],
  Role: ['description', 'id', 'name'],
  CreateServiceAccountReply: ['accessTokenUri', 'clientId', 'clientSecret', 'name'],
  RotateServiceAccountSecretReply: [
    'accessTokenUri',
    'clientId',
    'clientSecret',
    'name',
    'suspendedTprPolicyIds',
  ],

  SnappableConnection: ['count', 'edges', 'nodes', 'pageInfo'],
  SnappableEdge: ['cursor', 'node'],
  Snappable: [
    'cluster',
    'complianceStatus',
    'fid',
    'id',
    'location',
    'name',
    'objectType',
    'protectionStatus',
    'slaDomain',
  ],

  GenericSnapshotConnection: ['count', 'edges', 'nodes', 'pageInfo'],
  GenericSnapshotEdge: ['cursor', 'node'],
  GenericSnapshot: ['date', 'expirationDate', 'id', 'isOnDemandSnapshot', 'snappableId'],
  CdmSnapshot: ['slaDomain'],
  PolarisSnapshot: ['slaDomain'],

  AsyncRequestStatus: [
    'endTime',
    'error',
    'id',
    'links',
    'nodeId',
    'progress',
    'result',
    'startTime',
    'status',
  ],
  RequestErrorInfo: ['message'],
  Link: ['href', 'rel'],

  SlaDomainConnection: ['count', 'edges', 'nodes', 'pageInfo'],
  SlaDomainEdge: ['cursor', 'node'],
  SlaDomain: ['id', 'name'],
  GlobalSlaReply: ['description', 'objectTypes', 'pausedClustersInfo', 'protectedObjectCount'],
  ClusterSlaDomain: ['cluster', 'protectedObjectCount'],
  PausedClustersInfo: ['pausedClusters', 'pausedClustersCount'],
  GlobalSlaStatusConnection: ['count', 'edges', 'nodes', 'pageInfo'],
  GlobalSlaStatusEdge: ['cursor', 'node'],
  GlobalSlaStatus: ['cluster', 'pauseStatus', 'pausedSlaInfo'],
  PausedSlaInfo: ['pauseNote', 'pauseStartDate', 'pausedBy'],
  PauseSlaReply: ['success'],

  ClusterConnection: ['count', 'edges', 'nodes', 'pageInfo'],
  ClusterEdge: ['cursor', 'node'],
  Cluster: ['id', 'name', 'status', 'type', 'version'],

  ActivitySeriesConnection: ['count', 'edges', 'nodes', 'pageInfo'],
  ActivitySeriesEdge: ['cursor', 'node'],
  ActivitySeries: [
    'activitySeriesId',
    'clusterName',
    'clusterUuid',
    'fid',
    'id',
    'isOnDemand',
    'lastActivityMessage',
    'lastActivityStatus',
    'lastActivityType',
    'lastUpdated',
    'objectId',
    'objectName',
    'objectType',
    'severity',
    'startTime',
  ],
};

/**
 * Enums copied whole although no listed field reaches them: the schema's words that paw's
 * vocabulary (src/platform/defaults/default-vocabulary.ts) is checked against.
 */
export const SCHEMA_ENUMS: readonly string[] = ['CdmJobStatus', 'ManagedObjectType'];
