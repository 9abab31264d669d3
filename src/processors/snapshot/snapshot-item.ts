import { UnrecoverableError, type Job } from 'bullmq';
import type { Logger } from '../../log/logger.js';
import { OutcomeQueries } from '../../outcomes/outcome-queries.js';
import type { ItemRecord } from '../../outcomes/outcome-records.js';
import { UnknownRunError } from '../../outcomes/outcome-store.js';
import { isActiveStatus } from '../../outcomes/outcome-status.js';
import { backoffDelay } from '../../queue/backoff.js';
import {
  UnsupportedWorkloadTypeError,
  isPlatformError,
} from '../../platform/http/platform-errors.js';
import { classifyJobStatus } from '../../platform/jobs/job-status.js';
import type { SnapshotJob } from '../../platform/jobs/snapshot-job.js';
import type { SnapshotJobHandle } from '../../platform/rest/workloads.js';
import { failureFacts, isTransientFailure } from '../../worker/job-failure.js';
import type { WorkerDependencies } from '../../worker/kind-processor.js';
import { recordItemAndMaybeFinish } from '../../worker/record-item.js';
import { RetryLaterError } from '../../worker/retry-later-error.js';
import { continueStepAt, isLastAttempt } from '../../worker/step-job.js';
import {
  detailsOf,
  scalarDetails,
  withoutPendingAttempt,
  type ItemDetails,
} from './item-details.js';
import { endOf } from './job-end.js';
import { nextPollDelay } from './poll-delay.js';
import { snapshotItemDataSchema, type SnapshotItemData } from './snapshot-item-job.js';
import { EVENT_SETTLE_MS, findEarlierTrigger } from './trigger-reconciliation.js';

/** Pause before a job interrupted by shutdown is taken up again. */
const RESUME_AFTER_SHUTDOWN_MS = 1_000;
/** The queue waits at least this long before retrying a trigger the platform rate-limited. */
const RATE_LIMITED_RETRY_MS = 5_000;

type Context = {
  readonly job: Job;
  readonly token: string | undefined;
  readonly signal: AbortSignal | undefined;
  readonly logger: Logger;
  data: SnapshotItemData;
};

/**
 * One workload's snapshot in a run, as a BullMQ step job:
 *
 * 1. **Intent**: the outcome item is marked running with the trigger-attempt time, before anything
 *    is sent.
 * 2. **Trigger** (`takeSnapshot` with the retention SLA Domain); the platform job id and the
 *    job-status link go to the outcome item and to the job's data.
 * 3. **Poll** without holding a worker slot: read the status, then move the job to the delayed
 *    set until the next read (an adaptive interval, see poll-delay.ts), until the job ends or
 *    `maxWait` runs out (`timed-out`).
 *
 * A workload is triggered once per run: a retry that finds an intent without a job id looks for
 * the job through the workload's events (trigger-reconciliation.ts) before sending anything.
 * The item that ends last finishes the run.
 */
export class SnapshotItemJob {
  private readonly queries: OutcomeQueries;

  constructor(private readonly dependencies: WorkerDependencies) {
    this.queries = new OutcomeQueries(dependencies.redis, dependencies.settings.redis.prefix);
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
      logger: this.dependencies.logger.child({
        kind: 'snapshot',
        runId: data.runId,
        jobId: job.id,
        target: data.workloadId,
        attempt: job.attemptsMade + 1,
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
    const { data } = context;
    const item = await this.dependencies.outcomes.getItem(data.runId, data.workloadId);
    if (item !== undefined && !isActiveStatus(item.status)) {
      context.logger.debug({ status: item.status }, 'item already recorded as ended');
      return { status: item.status };
    }

    if (data.platformJobId !== undefined) return this.poll(context, item);
    if (item?.platformJobId !== undefined) {
      // The answer reached the outcome store but not the job's data (a crash in between).
      await this.adopt(context, item, item.platformJobId, 'outcome-record', undefined);
      return this.poll(context, await this.currentItem(context));
    }
    const details = detailsOf(item);
    if (details.triggerAttemptAt !== undefined) {
      const adopted = await this.reconcile(context, item, details);
      if (adopted) return this.poll(context, await this.currentItem(context));
    }
    return this.trigger(context, item);
  }

  /** Looks for the job an unanswered earlier trigger may have started; true if adopted. */
  private async reconcile(
    context: Context,
    item: ItemRecord | undefined,
    details: ItemDetails,
  ): Promise<boolean> {
    const lastAttempt = Date.parse(details.triggerAttemptAt ?? '');
    const settledAt = lastAttempt + EVENT_SETTLE_MS;
    if (Date.now() < settledAt) {
      context.logger.info(
        { triggerAttemptAt: details.triggerAttemptAt },
        'an earlier trigger may have reached the platform; looking for it once its events have settled',
      );
      return continueStepAt(context.job, context.token, settledAt);
    }
    const since = Date.parse(details.firstTriggerAttemptAt ?? details.triggerAttemptAt ?? '');
    let found;
    try {
      found = await findEarlierTrigger({
        platform: this.dependencies.platform,
        queries: this.queries,
        logger: context.logger,
        runId: context.data.runId,
        workloadId: context.data.workloadId,
        since,
        signal: context.signal,
      });
    } catch (error) {
      return this.failTransiently(context, error, 'looking for an earlier trigger');
    }
    if (found === undefined) {
      context.logger.warn(
        { since: new Date(since).toISOString() },
        'no trace of the earlier trigger on the platform (events, job records); triggering again',
      );
      return false;
    }
    context.logger.info(
      { platformJobId: found.jobId, queuedAt: found.queuedAt },
      'the earlier trigger did reach the platform: adopting its job instead of triggering again',
    );
    await this.adopt(context, item, found.jobId, 'events', found.job);
    return true;
  }

  /** Records a job id learnt some other way than from the trigger's answer, then polls it. */
  private async adopt(
    context: Context,
    item: ItemRecord | undefined,
    platformJobId: string,
    from: NonNullable<ItemDetails['jobIdFrom']>,
    job: SnapshotJob | undefined,
  ): Promise<void> {
    const handle = this.dependencies.platform.rest.workloads.jobHandleFor(
      context.data.workloadId,
      platformJobId,
    );
    const previous = detailsOf(item);
    const triggeredAtMs = Date.parse(
      previous.triggeredAt ??
        previous.triggerAttemptAt ??
        previous.firstTriggerAttemptAt ??
        new Date().toISOString(),
    );
    const details: ItemDetails = {
      ...withoutPendingAttempt(previous),
      jobIdFrom: from,
      statusUrl: handle.statusUrl.href,
      ...(job === undefined ? {} : { platformStatus: job.status }),
    };
    await this.dependencies.outcomes.recordItem(context.data.runId, context.data.workloadId, {
      status: 'running',
      platformJobId,
      details: scalarDetails(details),
    });
    context.data = {
      ...context.data,
      platformJobId,
      statusUrl: handle.statusUrl.href,
      triggeredAtMs,
    };
    await context.job.updateData(context.data);
  }

  private async trigger(context: Context, item: ItemRecord | undefined): Promise<unknown> {
    const { data, job, logger } = context;
    const { outcomes, platform, crashPoints } = this.dependencies;
    const previous = detailsOf(item);
    const attemptAt = new Date().toISOString();
    const intent: ItemDetails = {
      ...previous,
      firstTriggerAttemptAt: previous.firstTriggerAttemptAt ?? attemptAt,
      triggerAttemptAt: attemptAt,
      triggersSent: (previous.triggersSent ?? 0) + 1,
      retentionSlaDomainId: data.slaDomainId,
    };
    // The intent goes on record before the trigger leaves: a retry that finds it without a job
    // id knows a snapshot may exist and looks for it instead of triggering blindly.
    await outcomes.recordItem(data.runId, data.workloadId, {
      status: 'running',
      target: data.workloadId,
      targetName: data.workloadName,
      targetType: data.workloadType,
      action: 'snapshot',
      attempts: job.attemptsMade + 1,
      startedAt: item?.startedAt ?? attemptAt,
      details: scalarDetails(intent),
    });
    crashPoints.reach('snapshot.after-intent');

    let trigger;
    try {
      trigger = await platform.rest.workloads.takeSnapshot(
        { id: data.workloadId, type: data.workloadType },
        {
          ...(data.slaDomainId === null ? {} : { slaDomainId: data.slaDomainId }),
          ...(context.signal === undefined ? {} : { signal: context.signal }),
        },
      );
    } catch (error) {
      return this.triggerFailed(context, error, intent);
    }
    crashPoints.reach('snapshot.after-trigger');

    const triggeredAtMs = Date.now();
    const answered: ItemDetails = {
      ...withoutPendingAttempt(intent),
      triggeredAt: new Date(triggeredAtMs).toISOString(),
      jobIdFrom: 'trigger',
      statusUrl: trigger.statusUrl.href,
      platformStatus: trigger.job.status,
    };
    await outcomes.recordItem(data.runId, data.workloadId, {
      status: 'running',
      platformJobId: trigger.jobId,
      errorCode: null,
      errorMessage: null,
      details: scalarDetails(answered),
    });
    crashPoints.reach('snapshot.after-record-outcome');
    context.data = {
      ...data,
      platformJobId: trigger.jobId,
      statusUrl: trigger.statusUrl.href,
      triggeredAtMs,
      polls: 0,
      lastStatus: trigger.job.status,
    };
    await job.updateData(context.data);
    crashPoints.reach('snapshot.after-record');
    logger.info({ platformJobId: trigger.jobId, status: trigger.job.status }, 'snapshot triggered');
    return this.afterRead(context, trigger.job, answered);
  }

  private async triggerFailed(
    context: Context,
    error: unknown,
    intent: ItemDetails,
  ): Promise<unknown> {
    const { data, logger } = context;
    const { outcomes } = this.dependencies;
    if (context.signal?.aborted === true) {
      // The request may or may not have left: the intent stays, and the retry reconciles.
      logger.info('shutting down during a trigger: the job resumes later and reconciles first');
      return continueStepAt(context.job, context.token, Date.now() + RESUME_AFTER_SHUTDOWN_MS);
    }
    if (error instanceof UnsupportedWorkloadTypeError) {
      await recordItemAndMaybeFinish(outcomes, data.runId, data.workloadId, {
        status: 'skipped',
        reason: error.platformMessage,
        finishedAt: new Date(),
        details: scalarDetails(withoutPendingAttempt(intent)),
      });
      return { status: 'skipped' };
    }
    const facts = failureFacts(error);
    const provablyNothing = isPlatformError(error) && !error.mayHaveTakenEffect;
    // A trigger that provably did nothing leaves no intent to reconcile.
    const details = provablyNothing ? withoutPendingAttempt(intent) : intent;
    const retryable = isTransientFailure(error);
    if (!retryable || isLastAttempt(context.job)) {
      const maybe =
        !provablyNothing && retryable
          ? ' (the trigger may have reached the platform: check the workload\u2019s events)'
          : '';
      await recordItemAndMaybeFinish(outcomes, data.runId, data.workloadId, {
        status: 'failed',
        ...facts,
        errorMessage: facts.errorMessage + maybe,
        finishedAt: new Date(),
        details: scalarDetails(details),
      });
      logger.error({ ...facts, retryable }, 'snapshot trigger failed');
      throw new UnrecoverableError(facts.errorMessage);
    }
    await outcomes.recordItem(data.runId, data.workloadId, {
      status: 'running',
      ...facts,
      details: scalarDetails(details),
    });
    logger.warn(
      { ...facts, mayHaveTakenEffect: !provablyNothing },
      'snapshot trigger failed; retrying',
    );
    throw retryLater(error);
  }

  /** Reads the job's status once, then records its end or waits (delayed) for the next read. */
  private async poll(context: Context, item: ItemRecord | undefined): Promise<unknown> {
    const { data } = context;
    const handle = this.handleOf(data);
    let job: SnapshotJob;
    try {
      job = await this.dependencies.platform.rest.workloads.snapshotJob(handle, context.signal);
    } catch (error) {
      return this.readFailed(context, error);
    }
    this.dependencies.crashPoints.reach('snapshot.after-poll');
    return this.afterRead(context, job, detailsOf(item));
  }

  private async afterRead(
    context: Context,
    job: SnapshotJob,
    details: ItemDetails,
  ): Promise<unknown> {
    const { data, logger } = context;
    const phase = classifyJobStatus(job.status);
    const now = Date.now();
    const triggeredAt = data.triggeredAtMs ?? now;
    const deadline = triggeredAt + data.maxWaitMs;
    const seen: ItemDetails = {
      ...details,
      platformStatus: job.status,
      ...(job.progress === undefined ? {} : { progress: job.progress }),
    };

    const ended = endOf(phase, job);
    if (ended !== undefined) {
      const snapshotDetails = job.snapshotId === undefined ? {} : { snapshotId: job.snapshotId };
      const recorded = await recordItemAndMaybeFinish(
        this.dependencies.outcomes,
        data.runId,
        data.workloadId,
        {
          ...ended,
          platformJobId: job.id,
          finishedAt: new Date(),
          details: scalarDetails({ ...seen, ...snapshotDetails }),
        },
      );
      logger.info(
        { platformJobId: job.id, status: ended.status, platformStatus: job.status },
        'snapshot job ended',
      );
      if (recorded.runFinished !== undefined) {
        logger.info({ status: recorded.runFinished }, 'last item ended: run finished');
      }
      return { status: ended.status };
    }

    if (now >= deadline) {
      await recordItemAndMaybeFinish(this.dependencies.outcomes, data.runId, data.workloadId, {
        status: 'timed-out',
        platformJobId: job.id,
        errorCode: 'MAX_WAIT_EXCEEDED',
        errorMessage:
          `the platform job was still ${job.status}` +
          (job.progress === undefined ? '' : ` (${job.progress}%)`) +
          ` after maxWait (${Math.round(data.maxWaitMs / 1000)} s); it may still finish on the platform` +
          (phase === 'unrecognised' ? `; "${job.status}" is a status paw does not know` : ''),
        finishedAt: new Date(),
        details: scalarDetails(seen),
      });
      logger.warn({ platformJobId: job.id, status: job.status }, 'snapshot job timed out');
      return { status: 'timed-out' };
    }

    if (phase === 'unrecognised' && job.status !== data.lastStatus) {
      logger.warn(
        { platformJobId: job.id, status: job.status },
        'the platform reports a job status paw does not know; waiting for it to end or for maxWait',
      );
    }
    if (job.status !== data.lastStatus) {
      // The record follows status changes, not every poll: 5,000 jobs polled for hours would
      // otherwise rewrite it constantly.
      await this.dependencies.outcomes.recordItem(data.runId, data.workloadId, {
        status: 'running',
        details: scalarDetails(seen),
      });
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
    context.data = {
      ...data,
      polls: (data.polls ?? 0) + 1,
      lastStatus: job.status,
      readFailures: 0,
    };
    await context.job.updateData(context.data);
    logger.debug(
      { platformJobId: job.id, status: job.status, progress: job.progress, nextPollMs: delay },
      'snapshot job in progress',
    );
    return continueStepAt(context.job, context.token, now + delay);
  }

  /** A status read failed: wait and read again (no attempt used), or record the end. */
  private async readFailed(context: Context, error: unknown): Promise<unknown> {
    const { data, logger } = context;
    if (context.signal?.aborted === true) {
      return continueStepAt(context.job, context.token, Date.now() + RESUME_AFTER_SHUTDOWN_MS);
    }
    const facts = failureFacts(error);
    const now = Date.now();
    const deadline = (data.triggeredAtMs ?? now) + data.maxWaitMs;
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
    const failures = (data.readFailures ?? 0) + 1;
    const delay = Math.min(
      backoffDelay(failures, this.dependencies.settings.queues.backoff, retryLater(error)),
      Math.max(0, deadline - now),
    );
    context.data = { ...data, readFailures: failures };
    await context.job.updateData(context.data);
    logger.warn(
      { ...facts, failures, nextPollMs: delay },
      'reading the snapshot job status failed',
    );
    return continueStepAt(context.job, context.token, now + delay);
  }

  /** Shutdown, or a transient failure the queue retries; the last attempt records the failure. */
  private async failTransiently(context: Context, error: unknown, doing: string): Promise<never> {
    if (context.signal?.aborted === true) {
      return continueStepAt(context.job, context.token, Date.now() + RESUME_AFTER_SHUTDOWN_MS);
    }
    const facts = failureFacts(error);
    const retryable = isTransientFailure(error);
    if (!retryable || isLastAttempt(context.job)) {
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
      throw new UnrecoverableError(facts.errorMessage);
    }
    context.logger.warn({ ...facts }, `${doing} failed; retrying`);
    throw retryLater(error);
  }

  private handleOf(data: SnapshotItemData): SnapshotJobHandle {
    const jobId = data.platformJobId ?? '';
    if (data.statusUrl === undefined) {
      return this.dependencies.platform.rest.workloads.jobHandleFor(data.workloadId, jobId);
    }
    return {
      workloadId: data.workloadId,
      jobId,
      statusUrl: new URL(data.statusUrl),
      linkSource: 'metadata',
    };
  }

  private async currentItem(context: Context): Promise<ItemRecord | undefined> {
    return this.dependencies.outcomes.getItem(context.data.runId, context.data.workloadId);
  }
}

/** A transient error for the queue; a 429 asks it to wait a little longer than usual. */
function retryLater(error: unknown): Error {
  if (isPlatformError(error) && error.kind === 'rate_limited') {
    return new RetryLaterError(error.message, RATE_LIMITED_RETRY_MS, { cause: error });
  }
  return error instanceof Error ? error : new Error(String(error));
}
