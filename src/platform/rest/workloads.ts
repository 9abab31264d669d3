import { z } from 'zod';
import { UnsupportedWorkloadTypeError } from '../http/platform-errors.js';
import { resolvePlatformLink } from '../http/origin-guard.js';
import { extractJobStatusLink, linkFromList } from '../jobs/job-status-link.js';
import { snapshotJobSchema, type SnapshotJob } from '../jobs/snapshot-job.js';
import type { Paginated } from '../pagination/paginated.js';
import type { RestClient } from './rest-client.js';

/** The only workload types the platform snapshots on demand (spec section 8). */
export const SNAPSHOT_WORKLOAD_TYPES = ['VSPHERE_VM', 'MSSQL_DATABASE'] as const;

/** A workload (protected object); extra fields are tolerated. */
export const workloadSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  type: z.string(),
  clusterId: z.string().nullish(),
  clusterName: z.string().nullish(),
  slaDomainId: z.string().nullish(),
  slaDomainName: z.string().nullish(),
});
export type Workload = z.output<typeof workloadSchema>;

/** A finished snapshot. `slaDomainId` and `expirationDate` both null means it is kept forever. */
export const snapshotSchema = z.looseObject({
  id: z.string().min(1),
  workloadId: z.string().nullish(),
  date: z.string().nullish(),
  isOnDemand: z.boolean().nullish(),
  slaDomainId: z.string().nullish(),
  expirationDate: z.string().nullish(),
  jobId: z.string().nullish(),
});
export type Snapshot = z.output<typeof snapshotSchema>;

export interface WorkloadFilters {
  /** Substring of the name, case-insensitive. */
  readonly name?: string | undefined;
  readonly type?: string | undefined;
  readonly clusterId?: string | undefined;
  readonly slaDomainId?: string | undefined;
}

/** Where a snapshot job can be followed. */
export interface SnapshotJobHandle {
  readonly workloadId: string;
  readonly jobId: string;
  /** The job-status URL (resolved against `{base_url}`; its origin is checked when it is used). */
  readonly statusUrl: URL;
  /** Where `statusUrl` came from: the trigger's metadata, the job's own links, or the route table. */
  readonly linkSource: 'metadata' | 'job-links' | 'route-table';
}

export interface SnapshotTrigger extends SnapshotJobHandle {
  readonly job: SnapshotJob;
}

/** Whether the platform can snapshot this workload type on demand. */
export function isSnapshotSupported(type: string): boolean {
  return (SNAPSHOT_WORKLOAD_TYPES as readonly string[]).includes(type);
}

/** Workloads, their snapshots, on-demand snapshots and their jobs. */
export class WorkloadsApi {
  constructor(private readonly rest: RestClient) {}

  list(filters: WorkloadFilters = {}, signal?: AbortSignal): Paginated<Workload> {
    return this.rest.collection('listWorkloads', workloadSchema, {
      query: { ...filters },
      signal,
    });
  }

  async get(workloadId: string, signal?: AbortSignal): Promise<Workload> {
    const result = await this.rest.call('getWorkload', workloadSchema, {
      params: { workloadId },
      signal,
    });
    return result.data;
  }

  snapshots(workloadId: string, signal?: AbortSignal): Paginated<Snapshot> {
    return this.rest.collection('listWorkloadSnapshots', snapshotSchema, {
      params: { workloadId },
      signal,
    });
  }

  /**
   * Takes an on-demand snapshot. A workload type the platform cannot snapshot is refused before
   * anything is sent. Without `slaDomainId` the workload's own SLA Domain applies; if it has none,
   * the platform keeps the snapshot forever (callers should warn). Not retried after a failure
   * that may have reached the platform: a repeated trigger is a second snapshot.
   */
  async takeSnapshot(
    workload: Pick<Workload, 'id' | 'type'>,
    options: { readonly slaDomainId?: string | undefined; readonly signal?: AbortSignal } = {},
  ): Promise<SnapshotTrigger> {
    if (!isSnapshotSupported(workload.type)) {
      throw new UnsupportedWorkloadTypeError({
        operation: 'takeSnapshot',
        code: 'UNSUPPORTED_WORKLOAD_TYPE',
        message:
          `workload ${workload.id} is a ${workload.type}; on-demand snapshots are supported only ` +
          `for ${SNAPSHOT_WORKLOAD_TYPES.join(' and ')} (vSphere VMs and SQL Server databases)`,
        mayHaveTakenEffect: false,
      });
    }
    const result = await this.rest.call('takeSnapshot', snapshotJobSchema, {
      params: { workloadId: workload.id },
      body: options.slaDomainId === undefined ? {} : { slaDomainId: options.slaDomainId },
      signal: options.signal,
    });
    const job = result.data;
    return { job, ...this.jobHandle(workload.id, job, result.metadata) };
  }

  /** Reads a snapshot job's current record through its status link. */
  async snapshotJob(handle: SnapshotJobHandle, signal?: AbortSignal): Promise<SnapshotJob> {
    const result = await this.rest.follow(
      'getSnapshotJobStatus',
      handle.statusUrl,
      snapshotJobSchema,
      signal,
    );
    return result.data;
  }

  /** A handle for a job known by id only (e.g. recorded before a crash). */
  jobHandleFor(workloadId: string, jobId: string): SnapshotJobHandle {
    return {
      workloadId,
      jobId,
      statusUrl: this.rest.routes.resolve('getSnapshotJobStatus', { workloadId, jobId }).url,
      linkSource: 'route-table',
    };
  }

  private jobHandle(
    workloadId: string,
    job: SnapshotJob,
    metadata: Readonly<Record<string, unknown>> | null,
  ): SnapshotJobHandle {
    const fromMetadata = extractJobStatusLink(metadata);
    if (fromMetadata !== undefined) {
      return {
        workloadId,
        jobId: job.id,
        statusUrl: resolvePlatformLink(fromMetadata, this.rest.baseUrl, 'takeSnapshot'),
        linkSource: 'metadata',
      };
    }
    const fromJob = linkFromList(job.links);
    if (fromJob !== undefined) {
      return {
        workloadId,
        jobId: job.id,
        statusUrl: resolvePlatformLink(fromJob, this.rest.baseUrl, 'takeSnapshot'),
        linkSource: 'job-links',
      };
    }
    return this.jobHandleFor(workloadId, job.id);
  }
}
