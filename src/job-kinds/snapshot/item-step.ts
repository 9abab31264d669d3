import { snapshotNote } from '../../platform/api/snapshot-note.js';
import { lazyChild } from '../../shared/lazy-child.js';
import type { Logger } from '../../shared/logger.js';
import type { ItemRecord, ItemUpdate } from '../../outcomes/outcome-records.js';
import type { ItemWrite } from './lanes/lane-queue.js';
import { isActiveStatus } from '../../outcomes/outcome-status.js';
import { backoffDelay } from '../../queue/job-backoff.js';
import { NotSentError } from '../../platform/http/not-sent-error.js';
import {
  UnsupportedWorkloadTypeError,
  isPlatformError,
} from '../../platform/http/platform-errors.js';
import { nextPollDelay } from '../../platform/jobs/poll-delay.js';
import type { SnapshotJob } from '../../platform/jobs/snapshot-job.js';
import { trackedId, type SnapshotTracking } from '../../platform/jobs/snapshot-tracking.js';
import type { Workload } from '../../platform/records/workload.js';
import { failureFacts, isTransientFailure } from '../job-failure.js';
import { itemFailureVerdict, retryError } from '../settle-failure.js';
import {
  detailsOf,
  recordedDetails,
  trackingOf,
  withoutPendingAttempt,
  type ItemDetails,
} from './item-details.js';
import { endOf } from './job-end.js';
import type { SnapshotDependencies } from './snapshot-dependencies.js';
import { findEarlierTrigger } from './trigger-reconciliation.js';
import { TRIGGER_SEND_WINDOW_MS, triggerVisibleBy } from './trigger-window.js';

/** A crash point reached once the write that carries it is made (src/shared/crash-points.ts). */
export type AfterWrite = 'snapshot.after-record' | 'snapshot.after-end';

/**
 * What one step of an item came to:
 * - `write`: its new state and its next due time in the lane, recorded with the lane's next
 *   write (one script for many items);
 * - `leave`: nothing to record (the worker is shutting down): the due time the lane gave it when
 *   it was taken brings it back;
 * - `trigger-again`: an earlier trigger left no trace on the platform: a new intent goes on
 *   record, then a new trigger.
 */
export type ItemOutcome =
  | { readonly kind: 'write'; readonly write: ItemWrite; readonly after?: AfterWrite }
  | { readonly kind: 'leave' }
  | { readonly kind: 'trigger-again'; readonly item: ItemRecord };

/** The run-wide facts an item's step needs (its lane's job data, and the lane's signal). */
export interface ItemStepContext {
  readonly runId: string;
  readonly slaDomainId: string | null;
  readonly maxWaitMs: number;
  /** Fires when the worker's shutdown grace period is over. */
  readonly signal: AbortSignal | undefined;
  readonly logger: Logger;
}

/**
 * One workload's snapshot in a run, one step at a time: the lane (snapshot-lane.ts) reads the
 * item's record, gives it to the step that its state calls for, and records what the step
 * decided together with the other items' (the outcome record is the one home of an item's
 * state).
 *
 * 1. **Intent**: an item about to be triggered is marked running with the trigger-attempt time
 *    ({@link intent}), on record before anything is sent.
 * 2. **Trigger** ({@link trigger}: `takeSnapshot` with the retention SLA Domain, through
 *    `platform.api`); how to follow the snapshot (its job id, cluster, kind, status link) goes
 *    to the item.
 * 3. **Poll** ({@link poll}): read the status, and record the end, or when to read again (an
 *    adaptive interval, see platform/jobs/poll-delay.ts), until the job ends or `maxWait` runs
 *    out (`timed-out`).
 *
 * A workload is triggered once per run: an item found with an intent and no answer is
 * reconciled ({@link reconcile}: what the earlier trigger left on the platform) before anything
 * is sent again, and triggered again only when the platform has had time to show it and shows
 * nothing. The item that ends last finishes the run, in the same write.
 */
export class SnapshotItemSteps {
  constructor(private readonly dependencies: SnapshotDependencies) {}

  /** A logger bound to the item, made only when it logs (most steps log nothing at warn). */
  itemLogger(context: ItemStepContext, item: ItemRecord): Logger {
    return lazyChild(context.logger, { target: item.itemKey, attempt: item.attempts ?? 1 });
  }

  /**
   * When an item taken now is due again unless its step records something first: as long as its
   * lane job's lock (`worker.lockDurationMs`). Should this worker die, BullMQ hands the lane to
   * another worker once that lock has expired, and the item is due by then; a live worker skips
   * its own items in flight when they come back due.
   */
  leaseUntil(now: number): number {
    return now + this.dependencies.settings.worker.lockDurationMs;
  }

  /**
   * The write that puts an item's intent on record, before its trigger is sent: running, with
   * the attempt's time; due again (to be reconciled) after its lease, should nothing else be
   * recorded first: the reconcile finds a trigger the platform shows, and otherwise looks again
   * once the platform would show it (trigger-window.ts). A queued item is claimed only if it is
   * still queued.
   */
  intent(item: ItemRecord, context: ItemStepContext, now: number): ItemWrite {
    const attemptAt = new Date(now).toISOString();
    const queued = item.status === 'queued';
    const details = intentDetails(detailsOf(item), attemptAt, context.slaDomainId);
    return {
      itemKey: item.itemKey,
      onlyIfStatus: item.status,
      update: {
        status: 'running',
        attempts: queued ? 1 : (item.attempts ?? 1),
        startedAt: item.startedAt ?? attemptAt,
        ...recordedDetails(details, undefined),
      },
      dueAt: this.leaseUntil(now),
    };
  }

  /**
   * An item as its step finds it: ended (it leaves the lane), followed (poll), with an intent and
   * no answer (reconcile), or to be triggered (after its intent).
   */
  stateOf(item: ItemRecord | undefined): 'gone' | 'poll' | 'reconcile' | 'trigger' {
    if (item === undefined || !isActiveStatus(item.status)) return 'gone';
    if (trackingOf(item) !== undefined) return 'poll';
    if (item.status !== 'queued' && detailsOf(item).triggerAttemptAt !== undefined) {
      return 'reconcile';
    }
    return 'trigger';
  }

  /** Sends the trigger of an item whose intent is on record, and decides from its answer. */
  async trigger(item: ItemRecord, context: ItemStepContext): Promise<ItemOutcome> {
    const { platform, crashPoints } = this.dependencies;
    const logger = this.itemLogger(context, item);
    const intent = detailsOf(item);
    let trigger;
    try {
      trigger = await platform.api.workloads.takeSnapshot(workloadOf(this.dependencies, item), {
        ...(context.slaDomainId === null ? {} : { slaDomainId: context.slaDomainId }),
        note: snapshotNote(`run ${context.runId}`),
        ...(context.signal === undefined ? {} : { signal: context.signal }),
        sendBy: Date.parse(intent.triggerAttemptAt ?? '') + TRIGGER_SEND_WINDOW_MS,
      });
    } catch (error) {
      return this.triggerFailed(item, context, logger, error, intent);
    }
    crashPoints.reach('snapshot.after-trigger');
    const answered: ItemDetails = {
      ...withoutPendingAttempt(intent),
      triggeredAt: new Date().toISOString(),
      jobIdFrom: 'trigger',
      platformStatus: trigger.job.status,
    };
    logger.info(
      { platformJobId: trigger.job.id, status: trigger.job.status },
      'snapshot triggered',
    );
    return this.afterRead(item, context, logger, trigger.job, answered, trigger.tracking, {
      answered: true,
      after: 'snapshot.after-record',
    });
  }

  private triggerFailed(
    item: ItemRecord,
    context: ItemStepContext,
    logger: Logger,
    error: unknown,
    intent: ItemDetails,
  ): ItemOutcome {
    if (error instanceof NotSentError) {
      // Nothing left this process: the intent is withdrawn (no attempt used) and the item is
      // triggered again under a new one, soon.
      logger.warn(
        { sendBy: new Date(error.sendBy).toISOString() },
        'the snapshot trigger waited too long for its turn at the request gate and was not sent; it is triggered again under a new intent',
      );
      return {
        kind: 'write',
        write: {
          itemKey: item.itemKey,
          update: {
            status: 'running',
            ...recordedDetails(
              { ...withoutPendingAttempt(intent), triggersSent: (intent.triggersSent ?? 1) - 1 },
              undefined,
            ),
          },
          dueAt: Date.now(),
        },
      };
    }
    if (error instanceof UnsupportedWorkloadTypeError && context.signal?.aborted !== true) {
      return end(item, {
        status: 'skipped',
        reason: error.platformMessage,
        finishedAt: new Date(),
        ...recordedDetails(withoutPendingAttempt(intent), undefined),
      });
    }
    const provablyNothing = isPlatformError(error) && !error.mayHaveTakenEffect;
    // A trigger that provably did nothing leaves no intent to reconcile. On shutdown the request
    // may or may not have left: the intent stays, and whoever takes the item up reconciles.
    const details = provablyNothing ? withoutPendingAttempt(intent) : intent;
    const attempt = item.attempts ?? 1;
    const verdict = this.verdict(error, attempt, context);
    if (verdict === 'shutdown') {
      logger.info(
        'shutting down while triggering the snapshot: the item resumes later and reconciles first',
      );
      return { kind: 'leave' };
    }
    const facts = failureFacts(error);
    if (verdict === 'fail') {
      const retryable = isTransientFailure(error);
      const maybe =
        !provablyNothing && retryable
          ? ' (the trigger may have reached the platform: check the workload\u2019s activity)'
          : '';
      logger.error({ ...facts, retryable }, 'triggering the snapshot failed');
      return end(item, {
        status: 'failed',
        ...facts,
        errorMessage: facts.errorMessage + maybe,
        finishedAt: new Date(),
        ...recordedDetails(details, undefined),
      });
    }
    logger.warn(
      { ...facts, mayHaveTakenEffect: !provablyNothing },
      'snapshot trigger failed; retrying',
    );
    return this.retryLater(item, error, attempt, {
      status: 'running',
      ...facts,
      ...recordedDetails(details, undefined),
    });
  }

  /**
   * An earlier trigger may have reached the platform without its answer being recorded: look
   * for what it left, and adopt it. Nothing yet, while the platform may still be about to show
   * it (until {@link triggerVisibleBy}): look again then. Nothing after that: trigger again. A
   * failed lookup never triggers: it is retried, and the last attempt records the item as
   * failed with the reason.
   */
  async reconcile(item: ItemRecord, context: ItemStepContext): Promise<ItemOutcome> {
    const { platform, queries, settings } = this.dependencies;
    const logger = this.itemLogger(context, item);
    const details = detailsOf(item);
    const lastAttempt = Date.parse(details.triggerAttemptAt ?? '');
    const visibleAt = triggerVisibleBy(lastAttempt, settings.platform);
    const since = Date.parse(details.firstTriggerAttemptAt ?? details.triggerAttemptAt ?? '');
    let found;
    try {
      found = await findEarlierTrigger({
        platform,
        queries,
        logger,
        runId: context.runId,
        workload: workloadOf(this.dependencies, item),
        since,
        signal: context.signal,
      });
    } catch (error) {
      return this.lookupFailed(item, context, logger, error);
    }
    if (found === undefined && Date.now() < visibleAt) {
      logger.info(
        { triggerAttemptAt: details.triggerAttemptAt },
        'an earlier trigger may have reached the platform and shows no activity yet; looking again once it can',
      );
      return { kind: 'write', write: { itemKey: item.itemKey, dueAt: visibleAt } };
    }
    if (found === undefined) {
      logger.warn(
        { since: new Date(since).toISOString() },
        'no trace of the earlier trigger on the platform (activity, snapshots); triggering again',
      );
      return { kind: 'trigger-again', item };
    }
    const base: ItemDetails = {
      ...withoutPendingAttempt(details),
      jobIdFrom: 'events',
      triggeredAt: details.triggeredAt ?? details.triggerAttemptAt ?? new Date().toISOString(),
    };
    if (found.found === 'snapshot') {
      logger.info(
        { snapshotId: found.snapshotId, at: found.time },
        'the earlier trigger did reach the platform: its snapshot exists; not triggering again',
      );
      return end(item, {
        status: 'succeeded',
        errorCode: null,
        errorMessage: null,
        reason: "the earlier trigger's on-demand snapshot was found on the platform",
        finishedAt: new Date(),
        ...recordedDetails({ ...base, snapshotId: found.snapshotId }, undefined),
      });
    }
    logger.info(
      { tracked: trackedId(found.tracking), via: found.tracking.via, at: found.time },
      'the earlier trigger did reach the platform: following it instead of triggering again',
    );
    return this.afterRead(item, context, logger, found.job, base, found.tracking, {
      answered: true,
    });
  }

  private lookupFailed(
    item: ItemRecord,
    context: ItemStepContext,
    logger: Logger,
    error: unknown,
  ): ItemOutcome {
    const doing = 'looking for an earlier trigger (nothing is triggered while paw cannot tell)';
    const attempt = item.attempts ?? 1;
    const verdict = this.verdict(error, attempt, context);
    if (verdict === 'shutdown') return { kind: 'leave' };
    const facts = failureFacts(error);
    if (verdict === 'fail') {
      logger.error({ ...facts, retryable: isTransientFailure(error) }, `${doing} failed`);
      return end(item, {
        status: 'failed',
        ...facts,
        errorMessage: `${doing}: ${facts.errorMessage}`,
        finishedAt: new Date(),
      });
    }
    logger.warn({ ...facts }, `${doing} failed; retrying`);
    return this.retryLater(item, error, attempt, { status: 'running' });
  }

  /** Reads the snapshot's status once, and decides: its end, or when to read again. */
  async poll(item: ItemRecord, context: ItemStepContext): Promise<ItemOutcome> {
    const logger = this.itemLogger(context, item);
    const tracking = trackingOf(item) as SnapshotTracking;
    let job: SnapshotJob;
    try {
      job = await this.dependencies.platform.api.workloads.readSnapshotJob(
        tracking,
        context.signal,
      );
    } catch (error) {
      return this.readFailed(item, context, logger, error);
    }
    this.dependencies.crashPoints.reach('snapshot.after-poll');
    return this.afterRead(item, context, logger, job, detailsOf(item), tracking);
  }

  /**
   * What a read of the snapshot's job (followed through `tracking`) says: its end is recorded
   * (and may finish the run), or maxWait ran out, or it is read again later. With
   * `recorded.answered`, the caller learnt how to follow it and has not recorded that yet (the
   * trigger's answer, an adopted job): it goes into the same write, so every path records once.
   */
  private afterRead(
    item: ItemRecord,
    context: ItemStepContext,
    logger: Logger,
    job: SnapshotJob,
    details: ItemDetails,
    tracking: SnapshotTracking,
    recorded: { readonly answered?: boolean; readonly after?: AfterWrite } = {},
  ): ItemOutcome {
    const answer: Pick<ItemUpdate, 'errorCode' | 'errorMessage'> =
      recorded.answered === true ? { errorCode: null, errorMessage: null } : {};
    const now = Date.now();
    const triggeredAt = triggeredAtOf(details, now);
    const deadline = triggeredAt + context.maxWaitMs;
    const { readFailures: _recovered, ...current } = details;
    const seen: ItemDetails = {
      ...current,
      platformStatus: job.status,
      ...(job.progress === undefined ? {} : { progress: job.progress }),
    };

    const ended = endOf(job);
    if (ended !== undefined) {
      const snapshotDetails = job.snapshotId === undefined ? {} : { snapshotId: job.snapshotId };
      logger.info(
        { platformJobId: job.id, status: ended.status, platformStatus: job.status },
        'snapshot job ended',
      );
      return end(
        item,
        {
          ...answer,
          ...ended,
          finishedAt: new Date(),
          ...recordedDetails({ ...seen, ...snapshotDetails }, tracking),
        },
        recorded.after,
      );
    }

    if (now >= deadline) {
      logger.warn({ platformJobId: job.id, status: job.status }, 'snapshot job timed out');
      return end(
        item,
        {
          ...answer,
          status: 'timed-out',
          errorCode: 'MAX_WAIT_EXCEEDED',
          errorMessage:
            `the platform job was still ${job.status}` +
            (job.progress === undefined ? '' : ` (${job.progress}%)`) +
            ` after maxWait (${Math.round(context.maxWaitMs / 1000)} s); it may still finish on the platform` +
            (job.phase === 'unrecognised' ? `; "${job.status}" is a status paw does not know` : ''),
          finishedAt: new Date(),
          ...recordedDetails(seen, tracking),
        },
        recorded.after,
      );
    }

    if (job.phase === 'unrecognised' && job.status !== details.platformStatus) {
      logger.warn(
        { platformJobId: job.id, status: job.status },
        'the platform reports a job status paw does not know; waiting for it to end or for maxWait',
      );
    }
    const { snapshotPoll } = this.dependencies.settings.worker;
    const delay = nextPollDelay({
      now,
      triggeredAt,
      startedAt: job.startTime === undefined ? undefined : Date.parse(job.startTime),
      progress: job.progress,
      deadline,
      minMs: snapshotPoll.minMs,
      maxMs: snapshotPoll.maxMs,
    });
    logger.debug(
      { platformJobId: job.id, status: job.status, progress: job.progress, nextPollMs: delay },
      'snapshot job in progress',
    );
    // The record follows what is new (an answer, a status change), not every poll: 5,000 jobs
    // polled for hours would otherwise rewrite it constantly.
    const changed =
      recorded.answered === true ||
      job.status !== details.platformStatus ||
      details.readFailures !== undefined;
    const write: ItemWrite = changed
      ? {
          itemKey: item.itemKey,
          update: { ...answer, status: 'running', ...recordedDetails(seen, tracking) },
          dueAt: now + delay,
        }
      : { itemKey: item.itemKey, dueAt: now + delay };
    return {
      kind: 'write',
      write,
      ...(changed && recorded.after !== undefined ? { after: recorded.after } : {}),
    };
  }

  /** A status read failed: read again after a backoff (no attempt used), or record the end. */
  private readFailed(
    item: ItemRecord,
    context: ItemStepContext,
    logger: Logger,
    error: unknown,
  ): ItemOutcome {
    if (context.signal?.aborted === true) return { kind: 'leave' };
    const details = detailsOf(item);
    const facts = failureFacts(error);
    const now = Date.now();
    const deadline = triggeredAtOf(details, now) + context.maxWaitMs;
    if (!isTransientFailure(error)) {
      logger.error({ ...facts }, 'cannot read the snapshot job status');
      return end(item, { status: 'failed', ...facts, finishedAt: new Date() });
    }
    if (now >= deadline) {
      return end(item, {
        status: 'timed-out',
        errorCode: facts.errorCode,
        errorMessage: `maxWait ran out while the job status could not be read: ${facts.errorMessage}`,
        finishedAt: new Date(),
      });
    }
    const failures = (details.readFailures ?? 0) + 1;
    const delay = Math.min(
      backoffDelay(failures, this.dependencies.settings.queues.backoff, retryError(error)),
      Math.max(0, deadline - now),
    );
    logger.warn(
      { ...facts, failures, nextPollMs: delay },
      'reading the snapshot job status failed',
    );
    return {
      kind: 'write',
      write: {
        itemKey: item.itemKey,
        update: {
          status: 'running',
          ...recordedDetails({ ...details, readFailures: failures }, trackingOf(item)),
        },
        dueAt: now + delay,
      },
    };
  }

  /** The one failure policy (settle-failure.ts), with the item's own attempts. */
  private verdict(error: unknown, attempt: number, context: ItemStepContext) {
    return itemFailureVerdict(
      error,
      attempt,
      this.dependencies.settings.queues.attempts,
      context.signal,
    );
  }

  /** A transient failure with attempts left: the next attempt, after paw's backoff. */
  private retryLater(
    item: ItemRecord,
    error: unknown,
    attempt: number,
    update: ItemUpdate,
  ): ItemOutcome {
    const delay = backoffDelay(
      attempt,
      this.dependencies.settings.queues.backoff,
      retryError(error),
    );
    return {
      kind: 'write',
      write: {
        itemKey: item.itemKey,
        update: { ...update, attempts: attempt + 1 },
        dueAt: Date.now() + delay,
      },
    };
  }
}

/**
 * The write of an item's end: it leaves the lane, and may finish the run. Only an item still
 * running ends: every step's item is running (its intent made it so), and one that is not any
 * more was ended or moved by someone else, whose word stands.
 */
function end(item: ItemRecord, update: ItemUpdate, after?: AfterWrite): ItemOutcome {
  return {
    kind: 'write',
    write: {
      itemKey: item.itemKey,
      update,
      onlyIfStatus: 'running',
      finishRunIfLast: true,
      dueAt: null,
    },
    after: after === undefined ? 'snapshot.after-end' : after,
  };
}

/** The workload as the run recorded it at fan-out (the item is the record of it). */
function workloadOf(dependencies: SnapshotDependencies, item: ItemRecord): Workload {
  const type = item.targetType ?? '';
  return {
    id: item.target ?? item.itemKey,
    name: item.targetName ?? item.itemKey,
    type,
    kind: dependencies.platform.api.vocabulary.workloadKind(type),
    clusterId: detailsOf(item).clusterId,
    clusterName: undefined,
    slaDomainId: undefined,
    slaDomainName: undefined,
  };
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
