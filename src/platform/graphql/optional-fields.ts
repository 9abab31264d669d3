/**
 * The fields of paw's GraphQL documents that paw can do without, as `Type.field` (the type the
 * document selects the field on). The platform withholds a field behind a feature flag, a
 * licence or a role it lacks: the field comes `null`, with an error whose `path` names it and
 * whose `extensions.code` is 403, beside the rest of the answer. A withheld field listed here
 * costs a warning naming it, and the rest of the answer is used; any other fails the request
 * with an error naming it (graphql-client.ts).
 *
 * A field belongs here only when nothing paw decides reads it: it is shown, counted or
 * recorded, and every reader takes its absence as "not known" (an SLA Domain's workload count;
 * not its paused clusters, whose absence would read as "paused nowhere").
 */
export const OPTIONAL_FIELDS: ReadonlySet<string> = new Set([
  // SLA Domains: shown by `paw sla list/get`; the doctor skips its type check without objectTypes.
  'GlobalSlaReply.description',
  'GlobalSlaReply.objectTypes',
  'GlobalSlaReply.protectedObjectCount',
  'ClusterSlaDomain.protectedObjectCount',
  // Who paused an SLA Domain and why: shown beside a pause paw leaves alone.
  'GlobalSlaStatus.pausedSlaInfo',
  // Clusters: shown by `paw clusters list`.
  'Cluster.type',
  'Cluster.version',
  // A snapshot job's record: its phase comes from `status`; links point at a cluster node, never followed.
  'AsyncRequestStatus.endTime',
  'AsyncRequestStatus.links',
  'AsyncRequestStatus.nodeId',
  'AsyncRequestStatus.progress',
  'AsyncRequestStatus.startTime',
  // Activity: its message and severity are shown and recorded, never decided on.
  'ActivitySeries.lastActivityMessage',
  'ActivitySeries.severity',
]);
