import { UnrecoverableError, type Job } from 'bullmq';
import { lazyChild } from '../../log/lazy-child.js';
import type { Logger } from '../../log/logger.js';
import type { OutcomeQueries } from '../../outcomes/outcome-queries.js';
import type { ItemRecord, ItemUpdate } from '../../outcomes/outcome-records.js';
import { UnknownRunError } from '../../outcomes/outcome-store.js';
import { isActiveStatus } from '../../outcomes/outcome-status.js';
import { backoffDelay } from '../../queue/backoff.js';
import {
  UnsupportedWorkloadTypeError,
  isPlatformError,
} from '../../platform/http/platform-errors.js';
import { nextPollDelay } from '../../platform/jobs/poll-delay.js';
import type { SnapshotJob } from '../../platform/jobs/snapshot-job.js';
import { trackedId, type SnapshotTracking } from '../../platform/jobs/snapshot-tracking.js';
import type { Workload } from '../../platform/records/workload.js';
import { failureFacts, isTransientFailure } from '../../processing/job-failure.js';
import { recordItemAndMaybeFinish } from '../../processing/record-item.js';
import { retryError, settleFailure } from '../../processing/settle-failure.js';
import {
  attemptNumber,
  continueAfterShutdown,
  continueStepAt,
  recordAndContinueStepAt,
} from '../../processing/step-job.js';
import {
  detailsOf,
  scalarDetails,
  trackingDetails,
  trackingOf,
  withoutPendingAttempt,
  type ItemDetails,
} from './item-details.js';
import { endOf } from './job-end.js';
import type { SnapshotDependencies } from './snapshot-dependencies.js';
import { snapshotItemDataSchema, type SnapshotItemData } from './snapshot-item-job.js';
import { findEarlierTrigger } from './trigger-reconciliation.js';

type Context = {
  readonly job: Job;
  readonly token: string | undefined;
  readonly signal: AbortSignal | undefined;
  readonly logger: Logger;
  readonly data: SnapshotItemData;
};

/**
 * One workload's snapshot in a run, as a BullMQ step job. The item's outcome record is the one
 * home of its state: every step reads it first, and the job's data only says which item it is.
 *
 * 1. **Intent**: the item is marked running with the trigger-attempt time, before anything is
 *    sent.
 * 2. **Trigger** (`takeSnapshot` with the retention SLA Domain, through `platform.api`); how to
 *    follow the snapshot (its job id, cluster, kind, status link) goes to the item.
 * 3. **Poll** without holding a worker slot: read the status, then move the job to the delayed
 *    set until the next read (an adaptive interval, see platform/jobs/poll-delay.ts), until the job ends or
 *    `maxWait` runs out (`timed-out`).
 *
 * A workload is triggered once per run: a retry that finds an intent without a job id looks
 * for what the earlier trigger left on the platform (trigger-reconciliation.ts) before sending
 * anything, and triggers again only when the platform has had time to show it and shows
 * nothing. The item that ends last finishes the run.
 */
export class SnapshotItemJob {
  private readonly queries: OutcomeQueries;

  constructor(private readonly dependencies: SnapshotDependencies) {
    this.queries = dependencies.queries;
  }

  async process(job: Job, token: string | undefined, signal?: AbortSignal): Promise<unknown> {
    const parsed = snapshotItemDataSchema.safeParse(job.data);
    if (!parsed.success) {
      throw new UnrecoverableError(`snapshot item job ${job.id ?? '?'} has invalid data`);
    }
    const data = parsed.data;
    const context: Context = {
      job,
      token,
      signal,
      data,
      logger: lazyChild(this.dependencies.logger, {
        kind: 'snapshot',
        runId: data.runId,
        jobId: job.id,
        target: data.workloadId,
        attempt: attemptNumber(job),
      }),
    };
    try {
      return await this.step(context);
    } catch (error) {
      if (error instanceof UnknownRunError) {
        throw new UnrecoverableError(`run ${data.runId} has no outcome record (trimmed?)`);
      }
      throw error;
    }
  }

  private async step(context: Context): Promise<unknown> {
    const { data, job } = context;
    // An item still queued has never been triggered: its intent is recorded in the same round
    // trip that reads it (only if it is still queued, so of two workers only one goes on). Any
    // other item comes back as it is, and its state says what to do.
    const attemptAt = new Date().toISOString();
    const claim = await this.dependencies.outcomes.recordItemIf(
      data.runId,
      data.workloadId,
      'queued',
      {
        status: 'running',
        attempts: attemptNumber(job),
        startedAt: attemptAt,
        details: scalarDetails(intentDetails({}, attemptAt, data.slaDomainId)),
      },
    );
    if (claim.recorded) {
      this.dependencies.crashPoints.reach('snapshot.after-intent');
      return this.send(context, claim.item, detailsOf(claim.item));
    }
    const item = claim.item;
    if (item !== undefined && !isActiveStatus(item.status)) {
      context.logger.debug({ status: item.status }, 'item already recorded as ended');
      return { status: item.status };
    }
    const tracking = trackingOf(item);
    if (tracking !== undefined) return this.poll(context, item, tracking);
    const details = detailsOf(item);
    if (details.triggerAttemptAt !== undefined) return this.reconcile(context, item, details);
    return this.trigger(context, item);
  }

  /**
   * An earlier trigger may have reached the platform without its answer being recorded: look
   * for what it left, and adopt it. Nothing yet, while the platform may still be about to show
   * it (`platform.activityDelayMs` after the attempt): look again then. Nothing after that:
   * trigger again. A failed lookup never triggers: it is retried, and the last attempt records
   * the item as failed with the reason.
   */
  private async reconcile(
    context: Context,
    item: ItemRecord | undefined,
    details: ItemDetails,
  ): Promise<unknown> {
    const lastAttempt = Date.parse(details.triggerAttemptAt ?? '');
    const visibleAt = lastAttempt + this.dependencies.settings.platform.activityDelayMs;
    const since = Date.parse(details.firstTriggerAttemptAt ?? details.triggerAttemptAt ?? '');
    let found;
    try {
      found = await findEarlierTrigger({
        platform: this.dependencies.platform,
        queries: this.queries,
        logger: context.logger,
        runId: context.data.runId,
        workload: this.workloadOf(context, item),
        since,
        signal: context.signal,
      });
    } catch (error) {
      return this.failTransiently(
        context,
        error,
        'looking for an earlier trigger (nothing is triggered while paw cannot tell)',
      );
    }
    if (found === undefined && Date.now() < visibleAt) {
      context.logger.info(
        { triggerAttemptAt: details.triggerAttemptAt },
        'an earlier trigger may have reached the platform and shows no activity yet; looking again once it can',
      );
      return continueStepAt(context.job, context.token, visibleAt);
    }
    if (found === undefined) {
      context.logger.warn(
        { since: new Date(since).toISOString() },
        'no trace of the earlier trigger on the platform (activity, snapshots); triggering again',
      );
      return this.trigger(context, item);
    }
    const base: ItemDetails = {
      ...withoutPendingAttempt(details),
      jobIdFrom: 'events',
      triggeredAt: details.triggeredAt ?? details.triggerAttemptAt ?? new Date().toISOString(),
    };
    if (found.found === 'snapshot') {
      context.logger.info(
        { snapshotId: found.snapshotId, at: found.time },
        'the earlier trigger did reach the platform: its snapshot exists; not triggering again',
      );
      await recordItemAndMaybeFinish(
        this.dependencies.outcomes,
        context.data.runId,
        context.data.workloadId,
        {
          status: 'succeeded',
          errorCode: null,
          errorMessage: null,
          reason: "the earlier trigger's on-demand snapshot was found on the platform",
          finishedAt: new Date(),
          details: scalarDetails({ ...base, snapshotId: found.snapshotId }),
        },
      );
      return { status: 'succeeded' };
    }
    context.logger.info(
      { tracked: trackedId(found.tracking), via: found.tracking.via, at: found.time },
      'the earlier trigger did reach the platform: following it instead of triggering again',
    );
    const adopted: ItemDetails = { ...base, ...trackingDetails(found.tracking) };
    return this.afterRead(context, found.job, adopted, {
      answer: { platformJobId: trackedId(found.tracking) },
    });
  }

  private async trigger(context: Context, item: ItemRecord | undefined): Promise<unknown> {
    const { data, job } = context;
    const { outcomes, crashPoints } = this.dependencies;
    const attemptAt = new Date().toISOString();
    const intent = intentDetails(detailsOf(item), attemptAt, data.slaDomainId);
    // The intent goes on record before the trigger leaves: a retry that finds it without a job
    // id knows a snapshot may exist and looks for it instead of triggering blindly.
    await outcomes.recordItem(data.runId, data.workloadId, {
      status: 'running',
      attempts: attemptNumber(job),
      startedAt: item?.startedAt ?? attemptAt,
      details: scalarDetails(intent),
    });
    crashPoints.reach('snapshot.after-intent');
    return this.send(context, item, intent);
  }

  /** Sends the trigger whose intent is on record, and follows its answer. */
  private async send(
    context: Context,
    item: ItemRecord | undefined,
    intent: ItemDetails,
  ): Promise<unknown> {
    const { data, logger } = context;
    const { platform, crashPoints } = this.dependencies;
    let trigger;
    try {
      trigger = await platform.api.workloads.takeSnapshot(this.workloadOf(context, item), {
        ...(data.slaDomainId === null ? {} : { slaDomainId: data.slaDomainId }),
        ...(context.signal === undefined ? {} : { signal: context.signal }),
      });
    } catch (error) {
      return this.triggerFailed(context, error, intent);
    }
    crashPoints.reach('snapshot.after-trigger');

    const answered: ItemDetails = {
      ...withoutPendingAttempt(intent),
      ...trackingDetails(trigger.tracking),
      triggeredAt: new Date().toISOString(),
      jobIdFrom: 'trigger',
      platformStatus: trigger.job.status,
    };
    logger.info(
      { platformJobId: trigger.job.id, status: trigger.job.status },
      'snapshot triggered',
    );
    // The answer is recorded with whatever comes next (the wait for the first poll, or the end):
    // one write, in the same script as the job's move.
    return this.afterRead(context, trigger.job, answered, {
      answer: { platformJobId: trackedId(trigger.tracking), errorCode: null, errorMessage: null },
      onRecorded: () => crashPoints.reach('snapshot.after-record'),
    });
  }

  private async triggerFailed(
    context: Context,
    error: unknown,
    intent: ItemDetails,
  ): Promise<unknown> {
    const { data, logger } = context;
    const { outcomes } = this.dependencies;
    if (error instanceof UnsupportedWorkloadTypeError && context.signal?.aborted !== true) {
      await recordItemAndMaybeFinish(outcomes, data.runId, data.workloadId, {
        status: 'skipped',
        reason: error.platformMessage,
        finishedAt: new Date(),
        details: scalarDetails(withoutPendingAttempt(intent)),
      });
      return { status: 'skipped' };
    }
    const provablyNothing = isPlatformError(error) && !error.mayHaveTakenEffect;
    // A trigger that provably did nothing leaves no intent to reconcile. On shutdown the request
    // may or may not have left: the intent stays, and the next run reconciles.
    const details = provablyNothing ? withoutPendingAttempt(intent) : intent;
    return settleFailure({
      ...this.failedStep(context, error),
      doing: 'triggering the snapshot',
      recordFailed: async (facts, retryable) => {
        const maybe =
          !provablyNothing && retryable
            ? ' (the trigger may have reached the platform: check the workload\u2019s activity)'
            : '';
        await recordItemAndMaybeFinish(outcomes, data.runId, data.workloadId, {
          status: 'failed',
          ...facts,
          errorMessage: facts.errorMessage + maybe,
          finishedAt: new Date(),
          details: scalarDetails(details),
        });
      },
      retry: async (facts) => {
        await outcomes.recordItem(data.runId, data.workloadId, {
          status: 'running',
          ...facts,
          details: scalarDetails(details),
        });
        logger.warn(
          { ...facts, mayHaveTakenEffect: !provablyNothing },
          'snapshot trigger failed; retrying',
        );
        throw retryError(error);
      },
    });
  }

  /** Reads the snapshot's status once, then records its end or waits (delayed) for the next read. */
  private async poll(
    context: Context,
    item: ItemRecord | undefined,
    tracking: SnapshotTracking,
  ): Promise<unknown> {
    let job: SnapshotJob;
    try {
      job = await this.dependencies.platform.api.workloads.readSnapshotJob(
        tracking,
        context.signal,
      );
    } catch (error) {
      return this.readFailed(context, error, detailsOf(item));
    }
    this.dependencies.crashPoints.reach('snapshot.after-poll');
    return this.afterRead(context, job, detailsOf(item));
  }

  /**
   * What a read of the snapshot's job says: its end is recorded (and may finish the run), or
   * maxWait ran out, or the job waits (delayed) for the next read. `recorded.answer` holds what
   * the caller learnt and has not recorded yet (the trigger's answer, an adopted job): it goes
   * into the same write, so every path records once.
   */
  private async afterRead(
    context: Context,
    job: SnapshotJob,
    details: ItemDetails,
    recorded: {
      readonly answer?: Pick<ItemUpdate, 'platformJobId' | 'errorCode' | 'errorMessage'>;
      readonly onRecorded?: () => void;
    } = {},
  ): Promise<unknown> {
    const { data, logger } = context;
    const { outcomes } = this.dependencies;
    const answer = recorded.answer ?? {};
    const now = Date.now();
    const triggeredAt = triggeredAtOf(details, now);
    const deadline = triggeredAt + data.maxWaitMs;
    const { readFailures: _recovered, ...current } = details;
    const seen: ItemDetails = {
      ...current,
      platformStatus: job.status,
      ...(job.progress === undefined ? {} : { progress: job.progress }),
    };

    const ended = endOf(job);
    if (ended !== undefined) {
      const snapshotDetails = job.snapshotId === undefined ? {} : { snapshotId: job.snapshotId };
      const finished = await recordItemAndMaybeFinish(outcomes, data.runId, data.workloadId, {
        ...answer,
        ...ended,
        finishedAt: new Date(),
        details: scalarDetails({ ...seen, ...snapshotDetails }),
      });
      recorded.onRecorded?.();
      this.dependencies.crashPoints.reach('snapshot.after-end');
      logger.info(
        { platformJobId: job.id, status: ended.status, platformStatus: job.status },
        'snapshot job ended',
      );
      if (finished.runFinished !== undefined) {
        logger.info({ status: finished.runFinished }, 'last item ended: run finished');
      }
      return { status: ended.status };
    }

    if (now >= deadline) {
      await recordItemAndMaybeFinish(outcomes, data.runId, data.workloadId, {
        ...answer,
        status: 'timed-out',
        errorCode: 'MAX_WAIT_EXCEEDED',
        errorMessage:
          `the platform job was still ${job.status}` +
          (job.progress === undefined ? '' : ` (${job.progress}%)`) +
          ` after maxWait (${Math.round(data.maxWaitMs / 1000)} s); it may still finish on the platform` +
          (job.phase === 'unrecognised' ? `; "${job.status}" is a status paw does not know` : ''),
        finishedAt: new Date(),
        details: scalarDetails(seen),
      });
      recorded.onRecorded?.();
      logger.warn({ platformJobId: job.id, status: job.status }, 'snapshot job timed out');
      return { status: 'timed-out' };
    }

    if (job.phase === 'unrecognised' && job.status !== details.platformStatus) {
      logger.warn(
        { platformJobId: job.id, status: job.status },
        'the platform reports a job status paw does not know; waiting for it to end or for maxWait',
      );
    }
    const delay = nextPollDelay({
      now,
      triggeredAt,
      startedAt: job.startTime === undefined ? undefined : Date.parse(job.startTime),
      progress: job.progress,
      deadline,
      minMs: this.dependencies.settings.worker.snapshotPoll.minMs,
      maxMs: this.dependencies.settings.worker.snapshotPoll.maxMs,
    });
    logger.debug(
      { platformJobId: job.id, status: job.status, progress: job.progress, nextPollMs: delay },
      'snapshot job in progress',
    );
    // The record follows what is new (an answer, a status change), not every poll: 5,000 jobs
    // polled for hours would otherwise rewrite it constantly.
    const changed =
      recorded.answer !== undefined ||
      job.status !== details.platformStatus ||
      details.readFailures !== undefined;
    if (!changed) return continueStepAt(context.job, context.token, now + delay);
    return recordAndContinueStepAt(
      outcomes,
      {
        runId: data.runId,
        itemKey: data.workloadId,
        update: { ...answer, status: 'running', details: scalarDetails(seen) },
        ...(recorded.onRecorded === undefined ? {} : { onRecorded: recorded.onRecorded }),
      },
      context.job,
      context.token,
      now + delay,
    );
  }

  /** A status read failed: wait and read again (no attempt used), or record the end. */
  private async readFailed(
    context: Context,
    error: unknown,
    details: ItemDetails,
  ): Promise<unknown> {
    const { data, logger } = context;
    if (context.signal?.aborted === true) return continueAfterShutdown(context.job, context.token);
    const facts = failureFacts(error);
    const now = Date.now();
    const deadline = triggeredAtOf(details, now) + data.maxWaitMs;
    if (!isTransientFailure(error)) {
      await recordItemAndMaybeFinish(this.dependencies.outcomes, data.runId, data.workloadId, {
        status: 'failed',
        ...facts,
        finishedAt: new Date(),
      });
      logger.error({ ...facts }, 'cannot read the snapshot job status');
      throw new UnrecoverableError(facts.errorMessage);
    }
    if (now >= deadline) {
      await recordItemAndMaybeFinish(this.dependencies.outcomes, data.runId, data.workloadId, {
        status: 'timed-out',
        errorCode: facts.errorCode,
        errorMessage: `maxWait ran out while the job status could not be read: ${facts.errorMessage}`,
        finishedAt: new Date(),
      });
      return { status: 'timed-out' };
    }
    // Transient: the next read waits with backoff, as a step (it holds no slot, uses no attempt).
    const failures = (details.readFailures ?? 0) + 1;
    const delay = Math.min(
      backoffDelay(failures, this.dependencies.settings.queues.backoff, retryError(error)),
      Math.max(0, deadline - now),
    );
    logger.warn(
      { ...facts, failures, nextPollMs: delay },
      'reading the snapshot job status failed',
    );
    return recordAndContinueStepAt(
      this.dependencies.outcomes,
      {
        runId: data.runId,
        itemKey: data.workloadId,
        update: {
          status: 'running',
          details: scalarDetails({ ...details, readFailures: failures }),
        },
      },
      context.job,
      context.token,
      now + delay,
    );
  }

  /** Shutdown, or a transient failure the queue retries; the last attempt records the failure. */
  private failTransiently(context: Context, error: unknown, doing: string): Promise<never> {
    return settleFailure({
      ...this.failedStep(context, error),
      doing,
      recordFailed: async (facts) => {
        await recordItemAndMaybeFinish(
          this.dependencies.outcomes,
          context.data.runId,
          context.data.workloadId,
          {
            status: 'failed',
            ...facts,
            errorMessage: `${doing}: ${facts.errorMessage}`,
            finishedAt: new Date(),
          },
        );
      },
    });
  }

  /** The parts of a failed step that every failure path passes on. */
  private failedStep(context: Context, error: unknown) {
    return {
      job: context.job,
      token: context.token,
      signal: context.signal,
      error,
      logger: context.logger,
    };
  }

  /** The workload as the run recorded it at fan-out (the item is the record of it). */
  private workloadOf(context: Context, item: ItemRecord | undefined): Workload {
    const type = item?.targetType ?? '';
    return {
      id: context.data.workloadId,
      name: item?.targetName ?? context.data.workloadId,
      type,
      kind: this.dependencies.platform.api.vocabulary.workloadKind(type),
      clusterId: detailsOf(item).clusterId,
      clusterName: undefined,
      slaDomainId: undefined,
      slaDomainName: undefined,
    };
  }
}

/** The details of an item about to be triggered (again): its intent, beside what it had. */
function intentDetails(
  previous: ItemDetails,
  attemptAt: string,
  slaDomainId: string | null,
): ItemDetails {
  return {
    ...previous,
    firstTriggerAttemptAt: previous.firstTriggerAttemptAt ?? attemptAt,
    triggerAttemptAt: attemptAt,
    triggersSent: (previous.triggersSent ?? 0) + 1,
    retentionSlaDomainId: slaDomainId,
  };
}

/** When maxWait started counting: the trigger's answer (or the snapshot's discovery). */
function triggeredAtOf(details: ItemDetails, fallback: number): number {
  const at = Date.parse(details.triggeredAt ?? '');
  return Number.isFinite(at) ? at : fallback;
}
