import type { VariablesOf } from 'gql.tada';
import type {
  SnapshotTrigger,
  TakeSnapshotOptions,
  WorkloadOperations,
} from '../api/platform-api.js';
import { InvalidRequestError, NotFoundError } from '../http/platform-errors.js';
import { activityJob } from '../jobs/activity-job.js';
import { hasEnded } from '../jobs/job-status.js';
import {
  lookupStart,
  withOnDemandSnapshots,
  type OnDemandEvidence,
  type OnDemandWindow,
} from '../jobs/on-demand-evidence.js';
import { toSnapshotJob, type SnapshotJob, type SnapshotJobRecord } from '../jobs/snapshot-job.js';
import { jobTracking, type SnapshotTracking } from '../jobs/snapshot-tracking.js';
import type { Paginated } from '../pagination/paginated.js';
import type { Snapshot } from '../records/snapshot.js';
import type { Workload, WorkloadFilters } from '../records/workload.js';
import type { Vocabulary } from '../vocabulary/vocabulary.js';
import { snapshotToTrigger } from '../api/snapshot-permission.js';
import { listActivitySeries, type ActivitySeries } from './activity-operations.js';
import type { GraphqlClient } from './graphql-client.js';
import { isUuid, paginateConnection } from './paginate-connection.js';
import {
  mssqlSnapshotStatus,
  takeMssqlSnapshot,
  takeVsphereSnapshot,
  vsphereSnapshotStatus,
} from './snapshot-operations.js';
import {
  listSnappables,
  listWorkloadSnapshots,
  type GenericSnapshot,
  type Snappable,
} from './workload-operations.js';

/**
 * Workloads, on-demand snapshots and their jobs through the GraphQL interface. A workload's id
 * is its FID; a job is tracked with the workload's cluster UUID and kind, which its status
 * query needs, so polling survives a restart.
 */
export class GraphqlWorkloads implements WorkloadOperations {
  /** Activity-followed snapshots in progress: what the last read saw, for the next one. */
  private readonly activityPolls = new Map<
    string,
    { readonly lastUpdated: string; readonly job: SnapshotJob }
  >();

  constructor(
    private readonly graphql: GraphqlClient,
    private readonly vocabulary: Vocabulary,
    private readonly pageSize: number,
  ) {}

  list(filters: WorkloadFilters = {}, signal?: AbortSignal): Paginated<Workload> {
    const kind =
      filters.type === undefined ? undefined : this.vocabulary.workloadKind(filters.type);
    const objectType = kind === undefined ? undefined : this.vocabulary.wordFor(kind, 'objectType');
    const all = paginateConnection({
      graphql: this.graphql,
      document: listSnappables,
      variables: {
        filter: {
          // A word of the vocabulary's `objectType` place: ObjectTypeEnum (a test proves it).
          ...(objectType === undefined ? {} : { objectType: [objectType as ObjectTypeWord] }),
          ...(filters.name === undefined ? {} : { searchTerm: filters.name }),
          ...(filters.clusterId === undefined ? {} : { cluster: { id: [filters.clusterId] } }),
          ...(filters.slaDomainId === undefined
            ? {}
            : { slaDomain: { id: [filters.slaDomainId] } }),
        },
      },
      pageSize: this.pageSize,
      connection: (data) => data.snappableConnection,
      map: (node) => this.toWorkload(node),
      signal,
    });
    const { type, name } = filters;
    // Checked again here: a type paw cannot name in the filter, and a search term the platform
    // reads more loosely than "the name contains".
    return type === undefined && name === undefined
      ? all
      : all.filter(
          (workload) =>
            (type === undefined || this.vocabulary.sameWorkloadType(workload.type, type)) &&
            (name === undefined || workload.name.toLowerCase().includes(name.toLowerCase())),
        );
  }

  async get(workloadId: string, signal?: AbortSignal): Promise<Workload> {
    if (isUuid(workloadId)) {
      const [found] = await paginateConnection({
        graphql: this.graphql,
        document: listSnappables,
        variables: { filter: { objectFid: [workloadId] } },
        pageSize: 1,
        connection: (data) => data.snappableConnection,
        map: (node) => this.toWorkload(node),
        signal,
      }).toArray(1);
      if (found !== undefined) return found;
    }
    throw new NotFoundError({
      operation: 'snappableConnection',
      code: 'NOT_FOUND',
      message: `no workload has the FID ${workloadId}`,
      mayHaveTakenEffect: false,
    });
  }

  snapshots(workloadId: string, signal?: AbortSignal): Paginated<Snapshot> {
    return paginateConnection({
      graphql: this.graphql,
      document: listWorkloadSnapshots,
      variables: { workloadId },
      pageSize: this.pageSize,
      connection: (data) => data.snapshotOfASnappableConnection,
      map: (node) => toSnapshot(workloadId, node),
      signal,
    });
  }

  async takeSnapshot(
    workload: Workload,
    options: TakeSnapshotOptions = {},
  ): Promise<SnapshotTrigger> {
    const decision = snapshotToTrigger(this.vocabulary, workload);
    if (decision.onDemandSnapshot === undefined) {
      throw refused(
        'takeSnapshot',
        'UNRECOGNISED_WORKLOAD_TYPE',
        `workload ${workload.id} is a "${workload.type}", a type paw does not recognise; through ` +
          "GraphQL a snapshot needs its kind's mutation: add the word to " +
          'platform.vocabulary.workloadTypes (under VSPHERE_VM or MSSQL_DATABASE), or use platform.api: rest',
      );
    }
    if (workload.clusterId === undefined) {
      throw refused(
        'takeSnapshot',
        'CLUSTER_UNKNOWN',
        `workload ${workload.id} came without its cluster; the job status query needs the cluster UUID`,
      );
    }
    const sla = options.slaDomainId === undefined ? {} : { slaId: options.slaDomainId };
    const note = options.note === undefined ? {} : { userNote: options.note };
    const signal = options.signal;
    const record =
      decision.onDemandSnapshot === 'vsphere-vm'
        ? (
            await this.graphql.request(
              takeVsphereSnapshot,
              { input: { id: workload.id, config: sla, ...note } },
              signal,
              options.sendBy,
            )
          ).vsphereOnDemandSnapshot
        : (
            await this.graphql.request(
              takeMssqlSnapshot,
              { input: { id: workload.id, config: { baseOnDemandSnapshotConfig: sla }, ...note } },
              signal,
              options.sendBy,
            )
          ).createOnDemandMssqlBackup;
    const job = this.toJob(record);
    return { job, tracking: jobTracking(workload, job.id, decision.onDemandSnapshot) };
  }

  async readSnapshotJob(tracking: SnapshotTracking, signal?: AbortSignal): Promise<SnapshotJob> {
    if (tracking.via === 'activity') return this.readActivity(tracking, signal);
    const { clusterId, onDemandSnapshot, jobId } = tracking;
    if (clusterId === undefined || onDemandSnapshot === undefined) {
      throw refused(
        'readSnapshotJob',
        'UNTRACKABLE_JOB',
        `snapshot job ${jobId} was recorded without its cluster or workload kind (triggered through ` +
          'REST?); the GraphQL status queries need both: follow it with platform.api: rest',
      );
    }
    const record =
      onDemandSnapshot === 'vsphere-vm'
        ? (
            await this.graphql.request(
              vsphereSnapshotStatus,
              { clusterUuid: clusterId, id: jobId },
              signal,
            )
          ).vSphereVMAsyncRequestStatus
        : (
            await this.graphql.request(
              mssqlSnapshotStatus,
              { input: { clusterUuid: clusterId, id: jobId } },
              signal,
            )
          ).mssqlJobStatus;
    return { ...this.toJob(record), workloadId: tracking.workloadId };
  }

  async findOnDemandActivity(
    workload: Pick<Workload, 'id' | 'kind' | 'clusterId'>,
    window: OnDemandWindow,
    signal?: AbortSignal,
  ): Promise<OnDemandEvidence[]> {
    const from = lookupStart(window);
    const evidence: OnDemandEvidence[] = [];
    const filters = { objectFid: [workload.id], startTimeGt: new Date(from).toISOString() };
    for await (const series of this.activities(filters, signal)) {
      const time = series.startTime ?? series.lastUpdated;
      if (Date.parse(time) < from) continue;
      evidence.push({
        kind: 'activity',
        activityId: series.activitySeriesId,
        time,
        tracking: {
          via: 'activity',
          workloadId: workload.id,
          activityId: series.activitySeriesId,
          since: time,
          clusterId: workload.clusterId,
        },
      });
    }
    return withOnDemandSnapshots(evidence, this.snapshots(workload.id, signal), from);
  }

  /** The workload's on-demand backup activity series, by `filters` (newest first). */
  private activities(
    filters: ActivityFilterVariables,
    signal: AbortSignal | undefined,
  ): Paginated<ActivitySeries> {
    return paginateConnection({
      graphql: this.graphql,
      document: listActivitySeries,
      variables: { filters },
      pageSize: this.pageSize,
      connection: (data) => data.activitySeriesConnection,
      map: (series) => series,
      signal,
    }).filter(
      (series) =>
        series.isOnDemand !== false &&
        this.vocabulary.isEventType(series.lastActivityType, 'backup'),
    );
  }

  /**
   * A snapshot followed through its activity. The first read finds the series; each later read
   * in this process asks only for series updated since the last one it saw
   * (`lastUpdatedTimeGt`), and an empty answer means nothing changed.
   */
  private async readActivity(
    tracking: Extract<SnapshotTracking, { via: 'activity' }>,
    signal: AbortSignal | undefined,
  ): Promise<SnapshotJob> {
    const key = `${tracking.workloadId}/${tracking.activityId ?? tracking.since}`;
    const seen = this.activityPolls.get(key);
    const filters: ActivityFilterVariables = {
      objectFid: [tracking.workloadId],
      startTimeGt: new Date(Date.parse(tracking.since) - 1000).toISOString(),
      ...(seen === undefined ? {} : { lastUpdatedTimeGt: seen.lastUpdated }),
    };
    for await (const series of this.activities(filters, signal)) {
      if (tracking.activityId !== undefined && series.activitySeriesId !== tracking.activityId) {
        continue;
      }
      const status = series.lastActivityStatus;
      const job = activityJob(
        tracking,
        status,
        this.vocabulary.eventPhase(status),
        series.lastUpdated,
        series.lastActivityMessage ?? undefined,
      );
      this.activityPolls.delete(key);
      if (!hasEnded(job)) {
        this.activityPolls.set(key, { lastUpdated: series.lastUpdated, job });
        if (this.activityPolls.size > ACTIVITY_POLLS_KEPT) {
          const oldest = this.activityPolls.keys().next();
          if (oldest.done !== true) this.activityPolls.delete(oldest.value);
        }
      }
      return job;
    }
    return seen?.job ?? activityJob(tracking, 'NO_ACTIVITY', 'unrecognised', undefined, undefined);
  }

  private toJob(record: SnapshotJobRecord): SnapshotJob {
    // The links of an async request point at a cluster node, never at the platform: the job is
    // followed through the status query, so they are not kept.
    return { ...toSnapshotJob(record, this.vocabulary.jobPhase(record.status)), links: [] };
  }

  private toWorkload(node: Snappable): Workload {
    return {
      id: node.fid ?? node.id,
      name: node.name,
      type: node.objectType,
      kind: this.vocabulary.workloadKind(node.objectType),
      clusterId: node.cluster?.id,
      clusterName: node.cluster?.name ?? undefined,
      slaDomainId: node.slaDomain === undefined ? undefined : (node.slaDomain?.id ?? null),
      slaDomainName: node.slaDomain === undefined ? undefined : (node.slaDomain?.name ?? null),
    };
  }
}

function toSnapshot(workloadId: string, node: GenericSnapshot): Snapshot {
  return {
    id: node.id,
    workloadId,
    date: node.date,
    isOnDemand: node.isOnDemandSnapshot,
    // The retention SLA Domain is on the implementations that have one.
    slaDomainId: 'slaDomain' in node ? (node.slaDomain?.id ?? null) : undefined,
    expirationDate: node.expirationDate,
    jobId: undefined,
  };
}

/** How many activity-followed snapshots a process remembers between polls (oldest forgotten). */
const ACTIVITY_POLLS_KEPT = 10_000;

type ActivityFilterVariables = NonNullable<VariablesOf<typeof listActivitySeries>['filters']>;
type ObjectTypeWord = NonNullable<
  NonNullable<VariablesOf<typeof listSnappables>['filter']>['objectType']
>[number];

/** paw refused before sending: nothing reached the platform. */
function refused(operation: string, code: string, message: string): InvalidRequestError {
  return new InvalidRequestError({
    operation,
    code,
    message,
    mayHaveTakenEffect: false,
  });
}
