import { z } from 'zod';
import type { Logger } from '../../shared/logger.js';
import type {
  SnapshotTrigger,
  TakeSnapshotOptions,
  WorkloadOperations,
} from '../api/platform-api.js';
import { activityJob } from '../jobs/activity-job.js';
import { extractJobStatusLink, linkFromList } from '../jobs/job-status-link.js';
import {
  lookupStart,
  withOnDemandSnapshots,
  type OnDemandEvidence,
  type OnDemandWindow,
} from '../jobs/on-demand-evidence.js';
import { snapshotJobRecordSchema, toSnapshotJob, type SnapshotJob } from '../jobs/snapshot-job.js';
import { jobTracking, type SnapshotTracking } from '../jobs/snapshot-tracking.js';
import type { Paginated } from '../pagination/paginated.js';
import type { Snapshot } from '../records/snapshot.js';
import type { Workload, WorkloadFilters } from '../records/workload.js';
import type { Vocabulary } from '../vocabulary/vocabulary.js';
import { snapshotToTrigger } from '../api/snapshot-permission.js';
import type { EventsApi } from './events.js';
import type { FieldAliases } from './field-aliases.js';
import type { RestClient } from './rest-client.js';

/** A workload record of the REST interface; extra fields are tolerated. */
const workloadRecordSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  type: z.string(),
  clusterId: z.string().nullish(),
  clusterName: z.string().nullish(),
  slaDomainId: z.string().nullish(),
  slaDomainName: z.string().nullish(),
});

const snapshotRecordSchema = z.looseObject({
  id: z.string().min(1),
  workloadId: z.string().nullish(),
  date: z.string().nullish(),
  isOnDemand: z.boolean().nullish(),
  slaDomainId: z.string().nullish(),
  expirationDate: z.string().nullish(),
  jobId: z.string().nullish(),
});

/**
 * Workloads, their snapshots, on-demand snapshots and their jobs through the task-based REST
 * interface. Records are read through the field aliases, words through the vocabulary.
 */
export class RestWorkloads implements WorkloadOperations {
  private readonly workloadSchema;
  private readonly snapshotSchema;
  private readonly jobSchema;
  private foreignLinkWarned = false;

  constructor(
    private readonly rest: RestClient,
    private readonly vocabulary: Vocabulary,
    aliases: FieldAliases,
    private readonly events: EventsApi,
    private readonly logger: Logger,
  ) {
    this.workloadSchema = aliases
      .schemaFor('workload', workloadRecordSchema)
      .transform((record) => this.toWorkload(record));
    this.snapshotSchema = aliases.schemaFor('snapshot', snapshotRecordSchema).transform(toSnapshot);
    this.jobSchema = aliases
      .schemaFor('snapshotJob', snapshotJobRecordSchema)
      .transform((record) => toSnapshotJob(record, this.vocabulary.jobPhase(record.status)));
  }

  list(filters: WorkloadFilters = {}, signal?: AbortSignal): Paginated<Workload> {
    // The type filter is applied here, by kind: the platform's word for a type is unpublished,
    // and a filter word it does not know could silently select nothing.
    const { type, ...serverFilters } = filters;
    const all = this.rest.collection('listWorkloads', this.workloadSchema, {
      query: { ...serverFilters },
      signal,
    });
    return type === undefined
      ? all
      : all.filter((workload) => this.vocabulary.sameWorkloadType(workload.type, type));
  }

  async get(workloadId: string, signal?: AbortSignal): Promise<Workload> {
    const result = await this.rest.call('getWorkload', this.workloadSchema, {
      params: { workloadId },
      signal,
    });
    return result.data;
  }

  snapshots(workloadId: string, signal?: AbortSignal): Paginated<Snapshot> {
    return this.rest.collection('listWorkloadSnapshots', this.snapshotSchema, {
      params: { workloadId },
      signal,
    });
  }

  async takeSnapshot(
    workload: Workload,
    // The REST interface publishes no field for a note: `note` goes through GraphQL only.
    options: TakeSnapshotOptions = {},
  ): Promise<SnapshotTrigger> {
    const decision = snapshotToTrigger(this.vocabulary, workload);
    const result = await this.rest.call('takeSnapshot', this.jobSchema, {
      params: withCluster({ workloadId: workload.id }, workload.clusterId),
      body: options.slaDomainId === undefined ? {} : { slaDomainId: options.slaDomainId },
      signal: options.signal,
      sendBy: options.sendBy,
    });
    const job = result.data;
    const link = extractJobStatusLink(result.metadata) ?? linkFromList(job.links);
    return {
      job,
      tracking: {
        ...jobTracking(workload, job.id, decision.onDemandSnapshot),
        statusUrl: link === undefined ? undefined : this.ownLink(link),
      },
    };
  }

  async readSnapshotJob(tracking: SnapshotTracking, signal?: AbortSignal): Promise<SnapshotJob> {
    if (tracking.via === 'activity') return this.readActivity(tracking, signal);
    const link = tracking.statusUrl === undefined ? undefined : this.ownLink(tracking.statusUrl);
    if (link !== undefined) {
      return (await this.rest.follow('getSnapshotJobStatus', new URL(link), this.jobSchema, signal))
        .data;
    }
    const result = await this.rest.call('getSnapshotJobStatus', this.jobSchema, {
      params: withCluster(
        { workloadId: tracking.workloadId, jobId: tracking.jobId },
        tracking.clusterId,
      ),
      signal,
    });
    return result.data;
  }

  async findOnDemandActivity(
    workload: Pick<Workload, 'id' | 'kind' | 'clusterId'>,
    window: OnDemandWindow,
    signal?: AbortSignal,
  ): Promise<OnDemandEvidence[]> {
    const from = lookupStart(window);
    const startTime = new Date(from).toISOString();
    const evidence: OnDemandEvidence[] = [];
    const firstSeenOfJob = new Map<string, string>();
    let firstWithoutJobId: string | undefined;
    for await (const event of this.events.list({ objectId: workload.id, startTime }, signal)) {
      if (event.objectId != null && event.objectId !== workload.id) continue;
      if (event.isOnDemand === false) continue;
      if (event.type != null && !this.vocabulary.isEventType(event.type, 'backup')) continue;
      if (Date.parse(event.time) < from) continue;
      if (event.jobId != null && event.jobId !== '') {
        const earlier = firstSeenOfJob.get(event.jobId);
        if (earlier === undefined || Date.parse(event.time) < Date.parse(earlier)) {
          firstSeenOfJob.set(event.jobId, event.time);
        }
      } else if (
        // A series begins queued or running: an event that says a job ended, with nothing
        // before it in the window, ends a job that started earlier (another run's), not ours.
        !endsAJob(this.vocabulary, event.status) &&
        (firstWithoutJobId === undefined || Date.parse(event.time) < Date.parse(firstWithoutJobId))
      ) {
        firstWithoutJobId = event.time;
      }
    }
    for (const [jobId, time] of firstSeenOfJob) {
      evidence.push({
        kind: 'job',
        jobId,
        time,
        tracking: jobTracking(workload, jobId, this.vocabulary.onDemandSnapshot(workload.kind)),
      });
    }
    if (firstWithoutJobId !== undefined && firstSeenOfJob.size === 0) {
      // Events without a job id cannot be told apart: together they are one activity, followed
      // from its first event.
      evidence.push({
        kind: 'activity',
        activityId: undefined,
        time: firstWithoutJobId,
        tracking: {
          via: 'activity',
          workloadId: workload.id,
          since: firstWithoutJobId,
          clusterId: workload.clusterId,
        },
      });
    }
    return withOnDemandSnapshots(evidence, this.snapshots(workload.id, signal), from);
  }

  /** A snapshot followed through its activity: the newest backup event since it started. */
  private async readActivity(
    tracking: Extract<SnapshotTracking, { via: 'activity' }>,
    signal?: AbortSignal,
  ): Promise<SnapshotJob> {
    for await (const event of this.events.list(
      { objectId: tracking.workloadId, startTime: tracking.since },
      signal,
    )) {
      if (event.objectId != null && event.objectId !== tracking.workloadId) continue;
      if (event.isOnDemand === false) continue;
      if (event.type != null && !this.vocabulary.isEventType(event.type, 'backup')) continue;
      const status = event.status ?? 'UNKNOWN';
      const phase = this.vocabulary.eventPhase(status);
      return activityJob(tracking, status, phase, event.time, event.message ?? undefined);
    }
    return activityJob(tracking, 'NO_ACTIVITY', 'unrecognised', undefined, undefined);
  }

  /**
   * A job link the token may follow: resolved against the REST base, and kept only when it is
   * on the platform's own origin. A link to a cluster node is never followed with the platform
   * token; the job is read through the route table instead, with one warning per client.
   */
  private ownLink(link: string): string | undefined {
    const url = this.rest.routes.resolveLink(link, 'takeSnapshot');
    if (url.origin === this.rest.baseUrl.origin) return url.href;
    if (!this.foreignLinkWarned) {
      this.foreignLinkWarned = true;
      this.logger.warn(
        { linkOrigin: url.origin, platformOrigin: this.rest.baseUrl.origin },
        "snapshot job links point at another origin (a cluster node?); paw never sends the platform's " +
          'token there and follows jobs through the route table (getSnapshotJobStatus) instead',
      );
    }
    return undefined;
  }

  private toWorkload(record: z.output<typeof workloadRecordSchema>): Workload {
    return {
      id: record.id,
      name: record.name,
      type: record.type,
      kind: this.vocabulary.workloadKind(record.type),
      clusterId: record.clusterId ?? undefined,
      clusterName: record.clusterName ?? undefined,
      slaDomainId: record.slaDomainId,
      slaDomainName: record.slaDomainName,
    };
  }
}

function toSnapshot(record: z.output<typeof snapshotRecordSchema>): Snapshot {
  return {
    id: record.id,
    workloadId: record.workloadId ?? undefined,
    date: record.date ?? undefined,
    isOnDemand: record.isOnDemand ?? undefined,
    slaDomainId: record.slaDomainId,
    expirationDate: record.expirationDate,
    jobId: record.jobId ?? undefined,
  };
}

/** Route parameters with the cluster id, for routes that place it (when it is known). */
function withCluster(
  params: Record<string, string>,
  clusterId: string | undefined,
): Record<string, string> {
  return clusterId === undefined ? params : { ...params, clusterId };
}

function endsAJob(vocabulary: Vocabulary, status: string | null | undefined): boolean {
  if (status == null) return false;
  const phase = vocabulary.eventPhase(status);
  return phase === 'succeeded' || phase === 'failed' || phase === 'canceled';
}
