import type { SimulatorClock } from './clock.js';
import type { EventLog } from './event-log.js';
import { MinHeap } from './min-heap.js';
import type { JobOptions } from './options.js';
import { retentionMs, type SimSlaDomain, type SimSnapshot, type SimWorkload } from './records.js';
import type { SeededRandom } from './seeded-random.js';

type JobOutcome = 'SUCCEEDED' | 'FAILED' | 'CANCELED';

/**
 * An on-demand snapshot job. Everything about its future is drawn when it is triggered (when it
 * starts, how long it runs, how it ends), so its state at any moment is a pure function of the
 * clock: no timer runs per job, and ten thousand queued jobs cost a few megabytes.
 */
export interface SnapshotJob {
  readonly id: string;
  readonly workload: SimWorkload;
  readonly triggeredAt: number;
  /** When a slot is free and the job leaves QUEUED. */
  readonly startAt: number;
  /** Planned duration from start to SUCCEEDED, real milliseconds. */
  readonly durationMs: number;
  /** When the job reaches its terminal status. */
  readonly endAt: number;
  readonly outcome: JobOutcome;
  /** Offset from start at which a cancellation was requested (CANCELING until endAt). */
  readonly cancelRequestedAt: number | null;
  readonly nodeId: string;
  readonly snapshotId: string;
  readonly slaDomainId: string | null;
  readonly retentionMs: number | null;
  readonly errorMessage: string | null;
  /** What the caller asked for beyond the snapshot itself, kept to be shown (`/_sim/jobs`). */
  readonly request: SnapshotRequest;
}

/**
 * What a trigger may add to the snapshot: a note for the activity log (GraphQL's `userNote`)
 * and, for a database, a full backup instead of an incremental one. The simulator has no
 * incremental backups, so both are only kept with the job.
 */
export interface SnapshotRequest {
  readonly userNote: string | null;
  readonly forceFullSnapshot: boolean | null;
}

/** A job as a poller sees it at one moment. */
export interface JobState {
  readonly status: string;
  readonly progress: number;
  readonly startTime: number | null;
  readonly endTime: number | null;
  readonly error: { message: string } | null;
  readonly snapshotId: string | null;
}

// Phases as fractions of the planned duration.
const ACQUIRING_UNTIL = 0.05;
const RUNNING_UNTIL = 0.9;
const CANCELING_FOR = 0.05;

const FAILURE_MESSAGES = [
  'Failed to create the snapshot: the virtual machine is locked by another task',
  'The VSS writer reported an error while freezing the database',
  'Lost the connection to the host during data transfer',
  'Not enough space on the cluster to store the snapshot',
];

interface Slot {
  freeAt: number;
  readonly index: number;
}

/**
 * Runs on-demand snapshot jobs: each cluster runs `concurrencyPerCluster` at once, the rest
 * wait for the earliest free slot (a min-heap of slot end times per cluster).
 */
export class SnapshotJobEngine {
  private readonly jobs = new Map<string, SnapshotJob>();
  private readonly jobsByWorkload = new Map<string, SnapshotJob[]>();
  private readonly slotsByCluster = new Map<string, MinHeap<Slot>>();

  constructor(
    private readonly clock: SimulatorClock,
    private readonly options: JobOptions,
    private readonly random: SeededRandom,
    private readonly events: EventLog,
  ) {}

  get size(): number {
    return this.jobs.size;
  }

  trigger(
    workload: SimWorkload,
    slaDomain: SimSlaDomain | null,
    request: SnapshotRequest = { userNote: null, forceFullSnapshot: null },
  ): SnapshotJob {
    const now = this.clock.now();
    const runId = this.random.uuid();
    const prefix =
      workload.type === 'MSSQL_DATABASE' ? 'MSSQL_DB_BACKUP' : 'CREATE_VSPHERE_SNAPSHOT';
    const durationSeconds = Math.max(
      this.options.durationSeconds.min,
      this.random.lognormal(
        this.options.durationSeconds.median,
        this.options.durationSeconds.sigma,
      ),
    );
    const durationMs = this.clock.realMs(durationSeconds);
    const draw = this.random.next();
    const outcome: JobOutcome =
      draw < this.options.failureRate
        ? 'FAILED'
        : draw < this.options.failureRate + this.options.cancelRate
          ? 'CANCELED'
          : 'SUCCEEDED';
    let runsFor = durationMs;
    let cancelRequestedAt: number | null = null;
    if (outcome === 'FAILED') {
      runsFor = durationMs * (0.1 + 0.8 * this.random.next());
    } else if (outcome === 'CANCELED') {
      cancelRequestedAt = durationMs * (0.1 + 0.7 * this.random.next());
      runsFor = cancelRequestedAt + durationMs * CANCELING_FOR;
    }

    const slots = this.slotsOf(workload.cluster.id);
    const slot = slots.pop() ?? { freeAt: 0, index: 0 };
    const startAt = Math.max(now + this.clock.realMs(this.options.queuedSeconds), slot.freeAt);
    const endAt = startAt + runsFor;
    slot.freeAt = endAt;
    slots.push(slot);

    const job: SnapshotJob = {
      id: `${prefix}_${workload.id}_${runId}:::0`,
      workload,
      triggeredAt: now,
      startAt,
      durationMs,
      endAt,
      outcome,
      cancelRequestedAt,
      nodeId: `cluster:${workload.cluster.id}:node-${(slot.index % workload.cluster.nodeCount) + 1}`,
      snapshotId: this.random.uuid(),
      slaDomainId: slaDomain?.id ?? null,
      retentionMs: slaDomain === null ? null : retentionMs(slaDomain.retention),
      errorMessage: outcome === 'FAILED' ? this.random.pick(FAILURE_MESSAGES) : null,
      request: { ...request },
    };
    this.jobs.set(job.id, job);
    let ofWorkload = this.jobsByWorkload.get(workload.id);
    if (ofWorkload === undefined) this.jobsByWorkload.set(workload.id, (ofWorkload = []));
    ofWorkload.push(job);
    this.scheduleEvents(job);
    return job;
  }

  /** Every job triggered so far, in trigger order (a Map keeps insertion order). */
  all(): IterableIterator<SnapshotJob> {
    return this.jobs.values();
  }

  find(jobId: string): SnapshotJob | undefined {
    return this.jobs.get(jobId);
  }

  /** The job's state at `now`. */
  stateOf(job: SnapshotJob, now = this.clock.now()): JobState {
    if (now < job.startAt) {
      return {
        status: 'QUEUED',
        progress: 0,
        startTime: null,
        endTime: null,
        error: null,
        snapshotId: null,
      };
    }
    const startTime = job.startAt;
    if (now >= job.endAt) {
      const progress = job.outcome === 'SUCCEEDED' ? 100 : progressAt(job, job.endAt - job.startAt);
      return {
        status: job.outcome,
        progress,
        startTime,
        endTime: job.endAt,
        error: job.errorMessage === null ? null : { message: job.errorMessage },
        snapshotId: job.outcome === 'SUCCEEDED' ? job.snapshotId : null,
      };
    }
    const offset = now - job.startAt;
    let status: string;
    if (job.cancelRequestedAt !== null && offset >= job.cancelRequestedAt) status = 'CANCELING';
    else if (offset < job.durationMs * ACQUIRING_UNTIL) status = 'ACQUIRING';
    else if (offset < job.durationMs * RUNNING_UNTIL) status = 'RUNNING';
    else status = 'FINISHING';
    return {
      status,
      progress: progressAt(job, offset),
      startTime,
      endTime: null,
      error: null,
      snapshotId: null,
    };
  }

  /** The finished snapshots of a workload's on-demand jobs, by now. */
  snapshotsOf(workloadId: string, now = this.clock.now()): SimSnapshot[] {
    const snapshots: SimSnapshot[] = [];
    for (const job of this.jobsByWorkload.get(workloadId) ?? []) {
      if (job.outcome !== 'SUCCEEDED' || now < job.endAt) continue;
      snapshots.push({
        id: job.snapshotId,
        workloadId,
        date: job.endAt,
        isOnDemand: true,
        slaDomainId: job.slaDomainId,
        expirationDate: job.retentionMs === null ? null : job.endAt + job.retentionMs,
        jobId: job.id,
      });
    }
    return snapshots;
  }

  /** How many jobs are in each status now. */
  countByStatus(now = this.clock.now()): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const job of this.jobs.values()) {
      const { status } = this.stateOf(job, now);
      counts[status] = (counts[status] ?? 0) + 1;
    }
    return counts;
  }

  private slotsOf(clusterId: string): MinHeap<Slot> {
    let slots = this.slotsByCluster.get(clusterId);
    if (slots === undefined) {
      slots = new MinHeap<Slot>((a, b) => a.freeAt - b.freeAt || a.index - b.index);
      for (let index = 0; index < this.options.concurrencyPerCluster; index++)
        slots.push({ freeAt: 0, index });
      this.slotsByCluster.set(clusterId, slots);
    }
    return slots;
  }

  private scheduleEvents(job: SnapshotJob): void {
    const workload = job.workload;
    const base = {
      type: 'BACKUP' as const,
      objectId: workload.id,
      objectName: workload.name,
      objectType: workload.type,
      clusterId: workload.cluster.id,
      jobId: job.id,
    };
    const what = `On-demand snapshot of ${workload.name}`;
    this.events.schedule({
      ...base,
      id: this.events.newId(),
      time: job.triggeredAt,
      status: 'QUEUED',
      severity: 'SEVERITY_INFO',
      message: `${what} queued`,
    });
    this.events.schedule({
      ...base,
      id: this.events.newId(),
      time: job.startAt,
      status: 'RUNNING',
      severity: 'SEVERITY_INFO',
      message: `${what} started on ${job.nodeId}`,
    });
    const end = {
      SUCCEEDED: { status: 'SUCCESS', severity: 'SEVERITY_INFO', message: `${what} succeeded` },
      FAILED: {
        status: 'FAILURE',
        severity: 'SEVERITY_CRITICAL',
        message: `${what} failed: ${job.errorMessage ?? ''}`,
      },
      CANCELED: {
        status: 'CANCELED',
        severity: 'SEVERITY_WARNING',
        message: `${what} was canceled`,
      },
    } as const;
    this.events.schedule({
      ...base,
      id: this.events.newId(),
      time: job.endAt,
      ...end[job.outcome],
    });
  }
}

/** Progress (0–100) at `offset` real milliseconds after the start. */
function progressAt(job: SnapshotJob, offset: number): number {
  const running =
    (offset - job.durationMs * ACQUIRING_UNTIL) /
    (job.durationMs * (RUNNING_UNTIL - ACQUIRING_UNTIL));
  if (running <= 0) return 0;
  return Math.min(99, 1 + Math.floor(98 * running));
}
