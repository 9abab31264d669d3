import { buildSchema, type GraphQLSchema } from 'graphql';

/**
 * The part of the platform's GraphQL schema that paw uses, with the real types: service-account
 * management (`ServiceAccount` has no `id`: the uuid inside `clientId` is its id, and "the
 * service" of the spec is its `roles`), and the operations of paw's jobs (docs/platform-model.md,
 * "GraphQL: the operations of paw's jobs").
 */
const SCHEMA_SDL = /* GraphQL */ `
  "A 64-bit integer."
  scalar Long
  "An ISO 8601 UTC timestamp."
  scalar DateTime
  "A UUID."
  scalar UUID

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

  enum ObjectTypeEnum {
    VmwareVirtualMachine
    Mssql
    LinuxFileset
    WindowsFileset
    ShareFileset
    OracleDatabase
    HypervVirtualMachine
    AwsNativeEc2Instance
  }

  type ClusterRef {
    id: UUID!
    name: String!
  }

  type SlaDomainRef {
    id: String!
    name: String!
  }

  "A workload: fid is its platform-wide id, id the cluster's own."
  type Snappable {
    id: String!
    fid: UUID
    name: String!
    objectType: ObjectTypeEnum!
    cluster: ClusterRef!
    slaDomain: SlaDomainRef
    location: String
    protectionStatus: String
    complianceStatus: String
  }

  type SnappableEdge {
    cursor: String!
    node: Snappable!
  }

  type SnappableConnection {
    count: Int!
    nodes: [Snappable!]!
    edges: [SnappableEdge!]!
    pageInfo: PageInfo!
  }

  input ClusterFilterRef {
    id: [UUID!]
  }

  input SlaDomainFilterRef {
    id: [String!]
  }

  input SnappableFilterInput {
    objectType: [ObjectTypeEnum!]
    searchTerm: String
    cluster: ClusterFilterRef
    slaDomain: SlaDomainFilterRef
    objectFid: [UUID!]
    protectionStatus: [String!]
  }

  type GenericSnapshot {
    id: String!
    date: DateTime!
    isOnDemandSnapshot: Boolean!
    expirationDate: DateTime
    slaDomain: SlaDomainRef
  }

  type GenericSnapshotEdge {
    cursor: String!
    node: GenericSnapshot!
  }

  type GenericSnapshotConnection {
    count: Int!
    nodes: [GenericSnapshot!]!
    edges: [GenericSnapshotEdge!]!
    pageInfo: PageInfo!
  }

  input BaseOnDemandSnapshotConfigInput {
    slaId: String
  }

  input VsphereOnDemandSnapshotInput {
    "The VM's FID."
    id: String!
    config: BaseOnDemandSnapshotConfigInput
    userNote: String
  }

  input MssqlBackupJobConfigInput {
    baseOnDemandSnapshotConfig: BaseOnDemandSnapshotConfigInput
    forceFullSnapshot: Boolean
  }

  input CreateOnDemandMssqlBackupInput {
    "The database's FID."
    id: String!
    config: MssqlBackupJobConfigInput!
    userNote: String
  }

  input MssqlJobStatusInput {
    clusterUuid: String!
    id: String!
  }

  type RequestErrorInfo {
    message: String
  }

  type Link {
    href: String!
    rel: String!
  }

  "An asynchronous request (a snapshot job). Its links point at the cluster node."
  type AsyncRequestStatus {
    id: String!
    status: String!
    progress: Float
    startTime: DateTime
    endTime: DateTime
    nodeId: String
    result: String
    error: RequestErrorInfo
    links: [Link!]!
  }

  enum SlaObjectType {
    VSPHERE_OBJECT_TYPE
    MSSQL_OBJECT_TYPE
    FILESET_OBJECT_TYPE
    NAS_OBJECT_TYPE
    ORACLE_OBJECT_TYPE
    HYPERV_OBJECT_TYPE
    AWS_EC2_EBS_OBJECT_TYPE
  }

  interface SlaDomain {
    id: String!
    name: String!
  }

  type GlobalSlaReply implements SlaDomain {
    id: String!
    name: String!
    description: String
    objectTypes: [SlaObjectType!]!
    protectedObjectCount: Int
  }

  type SlaDomainEdge {
    cursor: String!
    node: SlaDomain!
  }

  type SlaDomainConnection {
    count: Int!
    nodes: [SlaDomain!]!
    edges: [SlaDomainEdge!]!
    pageInfo: PageInfo!
  }

  enum GlobalSlaQueryFilterInputField {
    NAME
    NAME_EXACT_MATCH
    CLUSTER_UUID
    OBJECT_TYPE
    SHOW_PAUSED_SLAS_ONLY
  }

  input GlobalSlaFilterInput {
    field: GlobalSlaQueryFilterInputField!
    text: String
    objectTypeList: [SlaObjectType!]
  }

  enum PauseStatus {
    NOT_PAUSED
    PAUSED
    UNKNOWN
  }

  type GlobalSlaStatus {
    cluster: ClusterRef!
    pauseStatus: PauseStatus!
    pausedSlaInfo: String
  }

  type GlobalSlaStatusEdge {
    cursor: String!
    node: GlobalSlaStatus!
  }

  type GlobalSlaStatusConnection {
    count: Int!
    nodes: [GlobalSlaStatus!]!
    edges: [GlobalSlaStatusEdge!]!
    pageInfo: PageInfo!
  }

  input PauseSlaInput {
    slaId: String!
    "Required: name the clusters."
    clusterUuids: [String!]!
    "true pauses, false resumes."
    pauseSla: Boolean!
  }

  type PauseSlaReply {
    success: Boolean!
  }

  enum ClusterTypeEnum {
    OnPrem
    Cloud
    Robo
    ExoCompute
    Polaris
    Unknown
  }

  enum ClusterStatus {
    Connected
    Disconnected
    Initializing
  }

  type Cluster {
    id: UUID!
    name: String!
    type: ClusterTypeEnum!
    version: String!
    status: ClusterStatus!
  }

  type ClusterEdge {
    cursor: String!
    node: Cluster!
  }

  type ClusterConnection {
    count: Int!
    nodes: [Cluster!]!
    edges: [ClusterEdge!]!
    pageInfo: PageInfo!
  }

  input ClusterFilterInput {
    name: [String!]
    type: [ClusterTypeEnum!]
    connectionState: [ClusterStatus!]
  }

  "Filter words; results spell the same ideas differently (VmwareVm, Success, Backup)."
  enum EventObjectType {
    VMWARE_VM
    MSSQL
    LINUX_FILESET
    WINDOWS_FILESET
    SHARE_FILESET
    ORACLE_DB
    HYPERV_VM
    AWS_EC2_INSTANCE
    SLA_DOMAIN
  }

  enum ActivityTypeEnum {
    BACKUP
    CONFIGURATION
  }

  enum ActivityStatusEnum {
    QUEUED
    RUNNING
    SUCCESS
    FAILURE
    PARTIAL_SUCCESS
    CANCELING
    CANCELED
    TASK_SUCCESS
    TASK_FAILURE
    INFO
    WARNING
  }

  enum ActivitySeverityEnum {
    SEVERITY_CRITICAL
    SEVERITY_WARNING
    SEVERITY_INFO
  }

  input ActivitySeriesFilter {
    objectFid: [UUID!]
    objectType: [EventObjectType!]
    lastActivityType: [ActivityTypeEnum!]
    lastActivityStatus: [ActivityStatusEnum!]
    severity: [ActivitySeverityEnum!]
    startTimeGt: DateTime
    startTimeLt: DateTime
    clusterUuid: [UUID!]
  }

  "One series per snapshot job or configuration change; never a job or request id."
  type ActivitySeries {
    id: String!
    activitySeriesId: UUID!
    objectId: String
    fid: UUID
    objectName: String
    objectType: String
    isOnDemand: Boolean!
    lastActivityType: String
    lastActivityStatus: String
    severity: String
    startTime: DateTime!
    lastUpdated: DateTime!
    clusterUuid: UUID
    clusterName: String
    lastActivityMessage: String
  }

  type ActivitySeriesEdge {
    cursor: String!
    node: ActivitySeries!
  }

  type ActivitySeriesConnection {
    count: Int!
    nodes: [ActivitySeries!]!
    edges: [ActivitySeriesEdge!]!
    pageInfo: PageInfo!
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
    snappableConnection(
      first: Int
      after: String
      filter: SnappableFilterInput
      sortBy: String
      sortOrder: SortOrder
    ): SnappableConnection!
    "A workload's snapshots, newest first."
    snapshotOfASnappableConnection(
      workloadId: String!
      first: Int
      after: String
    ): GenericSnapshotConnection!
    vSphereVMAsyncRequestStatus(clusterUuid: UUID!, id: String!): AsyncRequestStatus!
    mssqlJobStatus(input: MssqlJobStatusInput!): AsyncRequestStatus!
    slaDomains(first: Int, after: String, filter: [GlobalSlaFilterInput!]): SlaDomainConnection!
    slaDomain(id: UUID!, shouldShowPausedClusters: Boolean): SlaDomain!
    globalSlaStatuses(SlaId: UUID!, first: Int, after: String): GlobalSlaStatusConnection!
    clusterConnection(first: Int, after: String, filter: ClusterFilterInput): ClusterConnection!
    activitySeriesConnection(
      first: Int
      after: String
      filters: ActivitySeriesFilter
    ): ActivitySeriesConnection!
  }

  type Mutation {
    createServiceAccount(input: CreateServiceAccountInput!): CreateServiceAccountReply!
    rotateServiceAccountSecret(
      input: RotateServiceAccountSecretInput!
    ): RotateServiceAccountSecretReply!
    "Overwrites the roles of the given users and service accounts."
    updateRoleAssignments(userIds: [String!], groupIds: [String!], roleIds: [String!]!): Boolean!
    deleteServiceAccountsFromAccount(input: DeleteServiceAccountsFromAccountInput!): Boolean!
    vsphereOnDemandSnapshot(input: VsphereOnDemandSnapshotInput!): AsyncRequestStatus!
    createOnDemandMssqlBackup(input: CreateOnDemandMssqlBackupInput!): AsyncRequestStatus!
    pauseSla(input: PauseSlaInput!): PauseSlaReply!
  }
`;

let built: GraphQLSchema | undefined;

/** The executable schema (built once per process; resolvers come with each request's root value). */
export function platformSchema(): GraphQLSchema {
  built ??= buildSchema(SCHEMA_SDL);
  return built;
}
