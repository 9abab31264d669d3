import { UnrecoverableError, type Job } from 'bullmq';
import { parseDuration } from '../../shared/duration.js';
import type { SnapshotDefinition } from '../../definitions/snapshot-definition.js';
import type { Logger } from '../../shared/logger.js';
import type { OutcomeQueries } from '../../outcomes/outcome-queries.js';
import type { ItemUpdate } from '../../outcomes/outcome-records.js';
import { isRunOf, parseRunJobData, recordFanOut, type RunJobData } from '../../queue/run-job.js';
import type { FailureFacts } from '../job-failure.js';
import { settleFailure } from '../settle-failure.js';
import { resolveRetention, type ResolvedRetention } from './retention.js';
import type { SnapshotDependencies } from './snapshot-dependencies.js';
import {
  SNAPSHOT_LANE_JOB_NAME,
  laneJobId,
  lanesFor,
  snapshotLaneDataSchema,
  type SnapshotLaneData,
} from './lanes/snapshot-lane-job.js';
import { targetDecision, targetPages, type TargetPage } from './targets.js';
import { attemptNumber } from '../../queue/step-job.js';

/**
 * The `run` job of a snapshot definition: resolves the retention SLA Domain and the target
 * workloads at fire time and fans them out page by page: as each page of the listing arrives, it
 * records one item per workload of it (unsupported types `skipped`, unknown ids `failed`, the rest
 * `queued`), queues the queued ones for the run's lanes and adds one `snapshot-lane` job per lane
 * with a deterministic id, so the lanes trigger the first page's workloads while the next pages
 * are read (each lane job takes its share from the queue and works through it: snapshot-lane.ts).
 * While it fans out, the run is marked so (no item that ends finishes it); the end of the fan-out
 * clears that and finishes a run with nothing left to wait for, in one step; otherwise its last
 * item finishes it.
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
      // Written into the run job's data once every page is recorded (recordFanOut).
      let fanOut = data.fanOut;
      let lanes: number;
      if (fanOut === undefined) {
        const fannedOut = await this.fanOutPages(data, logger, signal);
        fanOut = { slaDomainId: fannedOut.retention.slaDomainId };
        lanes = fannedOut.lanes;
        await recordFanOut(job, fanOut);
      } else {
        // A retry after the marker: the items the outcome store still has queued or running.
        const { slaDomainId } = fanOut;
        lanes = await this.queueActiveItems(data, () => Promise.resolve(slaDomainId));
      }
      crashPoints.reach('snapshot.after-fan-out');

      // The fan-out's end, and the run's when nothing is left to wait for, in one step.
      const end = await runs.endFanOut(data.runId);
      if (end.finished) {
        logger.info({ status: end.status }, 'snapshot run finished: nothing to wait for');
        return { runId: data.runId, status: end.status };
      }
      logger.info({ lanes }, 'snapshot run fanned out');
      return { runId: data.runId, lanes };
    } catch (error) {
      return this.fail(job, token, data, error, logger, signal);
    }
  }

  /**
   * Resolves retention and targets, and fans the targets out page by page: each page's items
   * recorded (the run marked fanning out with the first of them), its workloads to trigger queued
   * for the lanes and the lane jobs added, before the next page is taken. Returns the retention
   * and the run's lane count (0: nothing to trigger).
   */
  private async fanOutPages(
    data: RunJobData & { definition: SnapshotDefinition },
    logger: Logger,
    signal: AbortSignal | undefined,
  ): Promise<{ retention: ResolvedRetention; lanes: number }> {
    const { platform, crashPoints } = this.dependencies;
    const { runId, definition } = data;
    // Stops the listing's walks when the fan-out stops early (a failure, the retention missing).
    const stop = new AbortController();
    const calls = signal === undefined ? stop.signal : AbortSignal.any([signal, stop.signal]);
    try {
      // Side by side: the retention lookup, the clusters' states and the first pages of the
      // listing (at the platform's latency each lookup that waits for another delays the night's
      // first trigger by a second or more). The retention is known before anything is queued:
      // the lane jobs carry it.
      const pages = targetPages(definition.targets, platform, calls)[Symbol.asyncIterator]();
      const firstPage = pages.next();
      firstPage.catch(() => undefined);
      const retention = await resolveRetention(definition, platform, signal);
      if (retention.keepForever) {
        logger.warn(
          { definitionId: definition.id },
          'KEEP FOREVER: this run takes snapshots without a retention SLA Domain; a workload without ' +
            'an SLA Domain of its own keeps them forever (keepForever: true in the definition)',
        );
      }

      let lanes: number | undefined;
      let queuedSoFar = 0;
      const covered: string[] = [];
      let unknownIds = 0;
      let pageCount = 0;
      for (let next = await firstPage; next.done !== true; next = await pages.next()) {
        const page = next.value;
        pageCount++;
        const { items, queued } = this.itemsOf(page);
        for (const [itemKey] of items) covered.push(itemKey);
        unknownIds += page.unknownIds.length;
        if (items.length === 0) continue;
        await this.dependencies.items.create(runId, items, { fanningOut: true });
        crashPoints.reach('snapshot.after-items-recorded');
        if (queued.length === 0) continue;
        queuedSoFar += queued.length;
        // Decided at the first page with a workload to trigger, and kept (a retry keeps the
        // first count): the whole count only when the listing has ended by then; else the
        // count is taken as large, and the platform's rate decides (lanesFor).
        lanes ??= await this.laneCount(runId, page.last ? queuedSoFar : Number.POSITIVE_INFINITY);
        await this.addLanes(data, retention.slaDomainId, lanes, queued);
        crashPoints.reach('snapshot.after-page-queued');
      }
      // The definition's coverage index keeps only the workloads it covers now.
      await this.dependencies.coverage.keepOnly(definition.id, covered);
      logger.info(
        {
          workloads: covered.length - unknownIds,
          unknownIds,
          pages: pageCount,
          slaDomainId: retention.slaDomainId,
        },
        'snapshot targets resolved and recorded',
      );
      return { retention, lanes: lanes ?? 0 };
    } finally {
      stop.abort();
    }
  }

  /** A page's items (unknown ids first), and the workloads of it to trigger, in listing order. */
  private itemsOf(page: TargetPage): { items: [string, ItemUpdate][]; queued: string[] } {
    const items: [string, ItemUpdate][] = [];
    const queued: string[] = [];
    for (const unknown of page.unknownIds) {
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
    const { vocabulary } = this.dependencies.platform.api;
    for (const workload of page.workloads) {
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
      const decision = targetDecision(workload, page, vocabulary);
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
    return { items, queued };
  }

  /**
   * Queues the run's items still queued or running for its lanes, with the lane jobs (each item
   * where the first fan-out put it; those queued or in a lane already are left where they are).
   * `slaDomainId` is asked for only when there is something to queue. Returns the lane count (0:
   * nothing left to trigger).
   */
  private async queueActiveItems(
    data: RunJobData & { definition: SnapshotDefinition },
    slaDomainId: () => Promise<string | null>,
  ): Promise<number> {
    const workloadIds = await this.activeItems(data.runId);
    if (workloadIds.length === 0) return 0;
    return this.addLanes(
      data,
      await slaDomainId(),
      await this.laneCount(data.runId, workloadIds.length),
      workloadIds,
    );
  }

  /**
   * The retention SLA Domain of a run whose fan-out did not finish: the one its lanes carry, or,
   * before any lane was added, resolved again (one platform lookup).
   */
  private async retentionOfRun(
    data: RunJobData & { definition: SnapshotDefinition },
    signal?: AbortSignal,
  ): Promise<string | null> {
    const lane = await this.dependencies.queues.queue('snapshot').getJob(laneJobId(data.runId, 0));
    const carried = snapshotLaneDataSchema.safeParse(lane?.data);
    if (carried.success) return carried.data.slaDomainId;
    return (await resolveRetention(data.definition, this.dependencies.platform, signal))
      .slaDomainId;
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
   * How many lanes the run's items are split into: the first count on record stays (a repeated
   * fan-out puts each item where the first put it), else the one `lanesFor` proposes for
   * `workloads` to trigger (infinite: as many as the platform's rate gives work to).
   */
  private laneCount(runId: string, workloads: number): Promise<number> {
    const { worker, platform } = this.dependencies.settings;
    return this.dependencies.lanes.count(
      runId,
      lanesFor(workloads, {
        laneSize: worker.snapshotLaneSize,
        laneRequestsPerSecond: worker.snapshotLaneRequestsPerSecond,
        requestsPerSecond: platform.requestsPerSecond,
      }),
    );
  }

  /**
   * Queues the workloads for the run's `lanes` lanes (those no lane has taken yet, and not
   * queued already) and adds a `snapshot-lane` job per lane (idempotent: the job id is the
   * lane's; a lane whose job is waiting or delayed is not added twice). Returns the lane count.
   */
  private async addLanes(
    data: RunJobData & { definition: SnapshotDefinition },
    slaDomainId: string | null,
    lanes: number,
    workloadIds: readonly string[],
  ): Promise<number> {
    if (workloadIds.length === 0) return 0;
    const { queues } = this.dependencies;
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
    data: RunJobData & { definition: SnapshotDefinition },
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
      recordFailed: (facts) => this.endFanOutFailed(data, facts, signal),
    });
  }

  /**
   * The run job given up on without running (taken back from dead workers more than
   * `worker.maxStalledCount` times: stall-limit.ts): its fan-out ends as a failed one would, or,
   * when every page was recorded already (`fanOut` in its data), as a finished one.
   */
  async givenUp(job: Job, reason: string): Promise<void> {
    let data: RunJobData;
    try {
      data = parseRunJobData(job.data);
    } catch {
      return; // process() would refuse it too: nothing of it was recorded.
    }
    if (!isRunOf(data, 'snapshot')) return;
    if (data.fanOut !== undefined) {
      const { slaDomainId } = data.fanOut;
      await this.queueActiveItems(data, () => Promise.resolve(slaDomainId));
      await this.dependencies.runs.endFanOut(data.runId);
      return;
    }
    await this.endFanOutFailed(data, { errorCode: 'STALLED', errorMessage: reason });
  }

  /**
   * Ends a fan-out that failed for good: a run with items recorded already (a listing that failed
   * on a later page) goes on with them, its lanes triggering and following them, and ends failed
   * with this reason once they end; a run with none fails now (RunStore.endFanOut). The items
   * recorded and not yet ended are queued for the lanes first: a failure (or a crash) between
   * recording a page and queueing it would leave them to no lane, and the run running for good.
   */
  private async endFanOutFailed(
    data: RunJobData & { definition: SnapshotDefinition },
    facts: FailureFacts,
    signal?: AbortSignal,
  ): Promise<void> {
    const { runs } = this.dependencies;
    const { runId } = data;
    await this.queueActiveItems(data, () => this.retentionOfRun(data, signal));
    const recorded = (await runs.get(runId))?.counts.total ?? 0;
    await runs.endFanOut(runId, {
      errorCode: facts.errorCode,
      errorMessage:
        recorded === 0
          ? facts.errorMessage
          : `the run's targets could not all be resolved: it goes on with the ${recorded} ` +
            `items recorded before the failure, and ends failed: ${facts.errorMessage}`,
    });
  }
}
