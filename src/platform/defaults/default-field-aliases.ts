/**
 * Where else a REST record may keep a field paw reads (docs/platform-model.md, "Field
 * aliases"): the REST interface's record shapes are unpublished, and the GraphQL schema names
 * the same facts differently (`objectType`, `cluster { id }`). When a record lacks one of paw's
 * fields, the first of its aliases (a dot path) that the record has is read instead.
 * `platform.fieldAliases` in the settings adds aliases, tried before these.
 *
 * This file holds data only and imports nothing (the settings schema reads it).
 */
export const REST_RECORD_KINDS = [
  'workload',
  'snapshot',
  'snapshotJob',
  'slaDomain',
  'cluster',
  'event',
] as const;
export type RestRecordKind = (typeof REST_RECORD_KINDS)[number];

export type FieldAliasTable = Readonly<
  Record<RestRecordKind, Readonly<Record<string, readonly string[]>>>
>;

export const DEFAULT_FIELD_ALIASES: FieldAliasTable = {
  workload: {
    type: ['objectType', 'workloadType'],
    clusterId: ['cluster.id', 'clusterUuid'],
    clusterName: ['cluster.name'],
    slaDomainId: ['slaDomain.id', 'effectiveSlaDomain.id'],
    slaDomainName: ['slaDomain.name', 'effectiveSlaDomain.name'],
  },
  snapshot: {
    isOnDemand: ['isOnDemandSnapshot'],
    slaDomainId: ['slaDomain.id'],
  },
  snapshotJob: {
    id: ['jobId', 'requestId'],
  },
  slaDomain: {},
  cluster: {
    connectionState: ['status'],
  },
  event: {
    time: ['lastUpdated', 'startTime'],
    type: ['lastActivityType'],
    status: ['lastActivityStatus'],
    objectId: ['fid', 'objectFid'],
    clusterId: ['cluster.id', 'clusterUuid'],
    message: ['lastActivityMessage'],
  },
};
