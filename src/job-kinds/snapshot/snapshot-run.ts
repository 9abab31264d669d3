import { UnrecoverableError, type Job } from 'bullmq';
import { parseDuration } from '../../shared/duration.js';
import type { SnapshotDefinition } from '../../definitions/snapshot-definition.js';
import type { Logger } from '../../shared/logger.js';
import type { OutcomeQueries } from '../../outcomes/outcome-queries.js';
import type { ItemUpdate } from '../../outcomes/outcome-records.js';
import { isRunOf, parseRunJobData, recordFanOut, type RunJobData } from '../../queue/run-job.js';
import { settleFailure } from '../settle-failure.js';
import { resolveRetention, type ResolvedRetention } from './retention.js';
import type { SnapshotDependencies } from './snapshot-dependencies.js';
import {
  SNAPSHOT_LANE_JOB_NAME,
  laneJobId,
  lanesFor,
  type SnapshotLaneData,
} from './lanes/snapshot-lane-job.js';
import { resolveTargets, targetDecision } from './targets.js';
import { attemptNumber } from '../../queue/step-job.js';

/**
 * The `run` job of a snapshot definition: resolves the retention SLA Domain and the target
 * workloads at fire time, records one item per workload (unsupported types `skipped`, unknown
 * ids `failed`, the rest `queued`), queues the queued ones for the run's lanes and adds one
 * `snapshot-lane` job per lane with a deterministic id: 5,000 VMs are three lanes, each job
 * taking its share of them from the queue and working through it (snapshot-lane.ts). A run with
 * nothing to trigger is finished here; otherwise its last item finishes it.
 */
export class SnapshotRunJob {
  private readonly queries: OutcomeQueries;

  constructor(private readonly dependencies: SnapshotDependencies) {
    this.queries = dependencies.queries;
  }

  async process(job: Job, token: string | undefined, signal?: AbortSignal): Promise<unknown> {
    let data: RunJobData;
    try {
      data = parseRunJobData(job.data);
    } catch (error) {
      throw new UnrecoverableError(`run job ${job.id ?? '?'} has invalid data: ${String(error)}`);
    }
    if (!isRunOf(data, 'snapshot')) {
      throw new UnrecoverableError(`run job ${data.runId} is a ${data.kind} run, not a snapshot`);
    }
    const { runs, crashPoints } = this.dependencies;
    const logger = this.dependencies.logger.child({
      kind: 'snapshot',
      runId: data.runId,
      jobId: job.id,
      attempt: attemptNumber(job),
    });

    const started = await runs.start(data.runId, { recordWithNextWrite: true });
    if (!started.started) {
      logger.info({ status: started.previousStatus }, 'run already ended; nothing to do');
      return { runId: data.runId, status: started.previousStatus };
    }

    try {
      // Written into the run job's data once every item is recorded (recordFanOut).
      let fanOut = data.fanOut;
      // The workloads to queue for the lanes: those just recorded, or (a retry after the items
      // were recorded) those the outcome store still has queued or running.
      let workloadIds: readonly string[] | undefined;
      if (fanOut === undefined) {
        const recorded = await this.resolveAndRecord(data.runId, data.definition, logger, signal);
        crashPoints.reach('snapshot.after-items-recorded');
        fanOut = { slaDomainId: recorded.retention.slaDomainId };
        workloadIds = recorded.queued;
        await recordFanOut(job, fanOut);
      }
      const added = await this.addLanes(
        data,
        fanOut.slaDomainId,
        workloadIds ?? (await this.activeItems(data.runId)),
      );
      crashPoints.reach('snapshot.after-fan-out');

      const run = await runs.get(data.runId);
      const counts = run?.counts;
      logger.info({ counts, lanes: added }, 'snapshot run fanned out');
      if (counts !== undefined && counts.queued === 0 && counts.running === 0) {
        const status = await runs.finish(data.runId);
        logger.info({ status, counts }, 'snapshot run finished: nothing to wait for');
        return { runId: data.runId, status };
      }
      return { runId: data.runId, lanes: added };
    } catch (error) {
      return this.fail(job, token, data.runId, error, logger, signal);
    }
  }

  /**
   * Resolves retention and targets, and records one item per target. Returns the retention and
   * the workloads recorded as queued (the ones to trigger).
   */
  private async resolveAndRecord(
    runId: string,
    definition: SnapshotDefinition,
    logger: Logger,
    signal: AbortSignal | undefined,
  ): Promise<{ retention: ResolvedRetention; queued: string[] }> {
    const { platform } = this.dependencies;
    // Side by side: at the platform's latency each lookup that waits for another delays the
    // night's first trigger by a second or more.
    const targetsResolved = resolveTargets(definition.targets, platform, signal);
    targetsResolved.catch(() => undefined);
    const retention = await resolveRetention(definition, platform, signal);
    if (retention.keepForever) {
      logger.warn(
        { definitionId: definition.id },
        'KEEP FOREVER: this run takes snapshots without a retention SLA Domain; a workload without ' +
          'an SLA Domain of its own keeps them forever (keepForever: true in the definition)',
      );
    }
    const targets = await targetsResolved;

    const items: [string, ItemUpdate][] = [];
    const queued: string[] = [];
    for (const unknown of targets.unknownIds) {
      items.push([
        unknown.id,
        {
          status: 'failed',
          target: unknown.id,
          action: 'snapshot',
          errorCode: 'NOT_FOUND',
          errorMessage: unknown.message,
          reason: 'the definition lists this workload id, but the platform does not know it',
          finishedAt: new Date(),
        },
      ]);
    }
    const { vocabulary } = platform.api;
    for (const workload of targets.workloads) {
      const common = {
        target: workload.id,
        targetName: workload.name,
        targetType: workload.type,
        action: 'snapshot',
        ...(workload.clusterId === undefined ? {} : { details: { clusterId: workload.clusterId } }),
      };
      // A kind paw knows the platform cannot snapshot, or a workload on a disconnected cluster, is
      // skipped here; a type paw does not recognise is triggered, and the platform's answer is
      // recorded.
      const decision = targetDecision(workload, targets, vocabulary);
      if (decision.action === 'trigger') {
        queued.push(workload.id);
        items.push([workload.id, { status: 'queued', ...common }]);
      } else {
        items.push([
          workload.id,
          { status: 'skipped', ...common, reason: decision.reason, finishedAt: new Date() },
        ]);
      }
    }
    await this.dependencies.items.create(runId, items);
    // The definition's coverage index keeps only the workloads it covers now.
    await this.dependencies.coverage.keepOnly(definition.id, [
      ...targets.unknownIds.map((unknown) => unknown.id),
      ...targets.workloads.map((workload) => workload.id),
    ]);
    logger.info(
      {
        workloads: targets.workloads.length,
        unknownIds: targets.unknownIds.length,
        slaDomainId: retention.slaDomainId,
      },
      'snapshot targets resolved and recorded',
    );
    return { retention, queued };
  }

  /** The workloads whose items are still queued or running (a fan-out resumed after a crash). */
  private async activeItems(runId: string): Promise<string[]> {
    const workloadIds: string[] = [];
    for await (const item of this.queries.items({ runId, statuses: ['queued', 'running'] })) {
      workloadIds.push(item.target ?? item.itemKey);
    }
    return workloadIds;
  }

  /**
   * Queues the workloads for the run's lanes (those no lane has taken yet) and adds a
   * `snapshot-lane` job per lane (idempotent: the job id is the lane's). Returns the lane count.
   */
  private async addLanes(
    data: RunJobData & { definition: SnapshotDefinition },
    slaDomainId: string | null,
    workloadIds: readonly string[],
  ): Promise<number> {
    if (workloadIds.length === 0) return 0;
    const { queues } = this.dependencies;
    // The first fan-out's count stays: a repeated one adds no lane and forgets none.
    const { worker, platform } = this.dependencies.settings;
    const lanes = await this.dependencies.lanes.count(
      data.runId,
      lanesFor(workloadIds.length, {
        laneSize: worker.snapshotLaneSize,
        laneRequestsPerSecond: worker.snapshotLaneRequestsPerSecond,
        requestsPerSecond: platform.requestsPerSecond,
      }),
    );
    await this.dependencies.lanes.enqueue(data.runId, lanes, workloadIds);
    const maxWaitMs = parseDuration(data.definition.maxWait) ?? 6 * 3_600_000;
    await queues.queue('snapshot').addBulk(
      Array.from({ length: lanes }, (_, lane) => ({
        name: SNAPSHOT_LANE_JOB_NAME,
        data: {
          runId: data.runId,
          definitionId: data.definitionId,
          lane,
          lanes,
          slaDomainId,
          maxWaitMs,
        } satisfies SnapshotLaneData,
        opts: { jobId: laneJobId(data.runId, lane) },
      })),
    );
    return lanes;
  }

  /**
   * A run that cannot go on: shutdown leaves it delayed; a permanent failure (or the last
   * attempt of a transient one) finishes the run as failed with the reason; a transient one is
   * retried by the queue.
   */
  private fail(
    job: Job,
    token: string | undefined,
    runId: string,
    error: unknown,
    logger: Logger,
    signal: AbortSignal | undefined,
  ): Promise<never> {
    return settleFailure({
      job,
      token,
      signal,
      error,
      logger,
      doing: 'the snapshot run',
      recordFailed: async (facts) => {
        await this.dependencies.runs.finish(runId, { status: 'failed', ...facts });
      },
    });
  }
}
