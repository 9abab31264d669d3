import type { RunJobDataOf } from '../../queue/run-job.js';
import { withLease } from '../../redis/redis-lease.js';
import { parseDuration } from '../../time/duration.js';
import type { WorkerDependencies } from '../../processing/kind-processor.js';
import { failureCode, failureMessage, isPermanentFailure } from '../../processing/job-failure.js';
import { enqueueResume } from './resume-job.js';
import type { Acquired, SlaHolds } from './sla-holds.js';
import { recordUnlessFinal, targetFields, windowItemKey } from './window-items.js';
import { WINDOW_LEASE, type WindowKeys } from './window-keys.js';
import {
  pauseStatusOf,
  resolveWindowTargets,
  type TargetProblem,
  type WindowDomain,
  type WindowTarget,
} from './window-target.js';

/** The item recorded when a run starts only after its window has ended. */
const WINDOW_ITEM_KEY = 'window/pause';

/**
 * The start of a maintenance window (the `run` job of an `sla-window` run):
 * 1. enqueue the resume, a delayed job due at the window's end (before any pause, so no pause
 *    exists without its resume);
 * 2. resolve the SLA Domains and clusters;
 * 3. per SLA Domain, holding its lease: read the pause state, take this window's hold on each
 *    cluster (recording whether paw or someone else paused it), record the resume items as
 *    pending, pause the clusters paw owns the pause of, record the pause items.
 *
 * Safe to repeat at every step: the hold records the decision before the pause call, so a retry
 * after a crash reuses it (a pause paw made is never mistaken for someone else's), and pausing
 * is idempotent. Transient failures are rethrown after every SLA Domain was tried (the job is
 * retried); permanent ones are recorded as failed items.
 */
export class WindowOpening {
  constructor(
    private readonly dependencies: WorkerDependencies,
    private readonly holds: SlaHolds,
    private readonly keys: WindowKeys,
  ) {}

  /**
   * Opens the window of a run. On the job's last attempt (`finalAttempt`) a failure is recorded
   * as such instead of being left for a retry that will not come.
   */
  async open(
    data: RunJobDataOf<'sla-window'>,
    options: { readonly signal?: AbortSignal | undefined; readonly finalAttempt: boolean },
  ): Promise<void> {
    const { outcomes, logger } = this.dependencies;
    const { runId } = data;
    const started = await outcomes.startRun(runId);
    if (!started.started) {
      logger.info({ runId, status: started.previousStatus }, 'window run already finished');
      return;
    }
    try {
      await this.openStarted(data, options.signal, options.finalAttempt);
    } catch (error) {
      if (options.finalAttempt || isPermanentFailure(error)) {
        await outcomes.recordItem(runId, WINDOW_ITEM_KEY, {
          status: 'failed',
          action: 'pause',
          errorCode: failureCode(error),
          errorMessage: failureMessage(error),
          finishedAt: new Date(),
        });
        await this.finishIfDone(runId);
      }
      throw error;
    }
  }

  private async openStarted(
    data: RunJobDataOf<'sla-window'>,
    signal: AbortSignal | undefined,
    finalAttempt: boolean,
  ): Promise<void> {
    const { outcomes, crashPoints, logger } = this.dependencies;
    const { runId, definition } = data;
    const windowEnd = new Date(
      Date.parse(data.fireTime) + (parseDuration(definition.schedule.duration) ?? 0),
    );
    await enqueueResume(
      this.dependencies.queues,
      this.dependencies.settings,
      { runId, definitionId: definition.id, windowEnd: windowEnd.toISOString() },
      new Date(),
    );
    crashPoints.reach('window.after-resume-enqueued');

    if (Date.now() >= windowEnd.getTime() || (await this.holds.hasEnded(runId))) {
      await outcomes.recordItem(runId, WINDOW_ITEM_KEY, {
        status: 'failed',
        action: 'pause',
        errorCode: 'WINDOW_ENDED',
        errorMessage:
          `the window ended at ${windowEnd.toISOString()} before a worker could open it ` +
          '(no further pause is made; whatever an earlier attempt paused is released by the resume)',
        finishedAt: new Date(),
      });
      await this.finishIfDone(runId);
      return;
    }

    const resolved = await resolveWindowTargets(
      this.dependencies.platform,
      definition.slaDomains,
      signal,
    );
    for (const problem of resolved.problems) await this.recordProblem(runId, problem);

    let transient: Error | undefined;
    for (const domain of resolved.domains) {
      try {
        await withLease(
          this.dependencies.redis,
          this.keys.lease(domain.id),
          `${runId}/pause`,
          { ...WINDOW_LEASE, signal },
          () => this.pauseDomain(runId, domain, windowEnd, signal),
        );
      } catch (error) {
        if (!isPermanentFailure(error) && !finalAttempt) {
          logger.warn(
            { runId, slaDomainId: domain.id, err: failureMessage(error) },
            'pausing an SLA Domain failed; the job will be retried',
          );
          transient ??= error instanceof Error ? error : new Error(String(error));
          continue;
        }
        logger.error(
          { runId, slaDomainId: domain.id, err: failureMessage(error) },
          'pausing an SLA Domain failed for good',
        );
        for (const target of domain.targets) {
          await recordUnlessFinal(outcomes, runId, windowItemKey(target, 'pause'), {
            status: 'failed',
            ...targetFields(target, 'pause'),
            errorCode: failureCode(error),
            errorMessage: failureMessage(error),
            finishedAt: new Date(),
          });
        }
      }
    }
    if (transient !== undefined) throw transient;
    await this.finishIfDone(runId);
  }

  private async pauseDomain(
    runId: string,
    domain: WindowDomain,
    windowEnd: Date,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const { platform, outcomes, crashPoints, logger } = this.dependencies;
    // Read the state under the lease: no other window of paw changes it until we are done.
    const current = await platform.api.slaDomains.get(domain.id, signal);
    const decisions = new Map<WindowTarget, Acquired>();
    for (const target of domain.targets) {
      const observed = pauseStatusOf(current, target.clusterId);
      const acquired = await this.holds.acquire(runId, target, windowEnd, observed, new Date());
      decisions.set(target, acquired);
      if (acquired.owner !== undefined) {
        // The intent, before the pause: this window's resume will release this hold.
        await recordUnlessFinal(outcomes, runId, windowItemKey(target, 'resume'), {
          status: 'queued',
          ...targetFields(target, 'resume'),
          reason: `due at the end of the window, ${windowEnd.toISOString()}`,
        });
      }
    }
    crashPoints.reach('window.after-hold');

    const toPause = domain.targets.filter((target) => decisions.get(target)?.owner === 'paw');
    if (toPause.length > 0) {
      await platform.api.slaDomains.pause(
        domain.id,
        toPause.map((target) => target.clusterId),
        signal,
      );
    }
    crashPoints.reach('window.after-pause');

    for (const target of domain.targets) {
      const acquired = decisions.get(target);
      if (acquired === undefined) continue;
      await recordUnlessFinal(outcomes, runId, windowItemKey(target, 'pause'), {
        ...pauseOutcome(acquired, pauseStatusOf(current, target.clusterId)),
        ...targetFields(target, 'pause'),
        finishedAt: new Date(),
      });
    }
    logger.info(
      {
        runId,
        slaDomainId: domain.id,
        paused: toPause.map((target) => target.clusterId),
        leftAlone: domain.targets
          .filter((target) => decisions.get(target)?.owner !== 'paw')
          .map((target) => target.clusterId),
      },
      'window opened on SLA Domain',
    );
  }

  private async recordProblem(runId: string, problem: TargetProblem): Promise<void> {
    const key =
      problem.clusterId === undefined
        ? `${problem.key}/pause`
        : `${problem.key}/${problem.clusterId}/pause`;
    await recordUnlessFinal(this.dependencies.outcomes, runId, key, {
      status: problem.status,
      target: problem.slaDomainId ?? null,
      targetName: problem.slaDomainName,
      targetType: 'SLA_DOMAIN',
      action: 'pause',
      ...(problem.status === 'failed'
        ? { errorCode: problem.errorCode ?? 'INVALID', errorMessage: problem.reason }
        : { reason: problem.reason }),
      ...(problem.clusterId === undefined ? {} : { details: { clusterId: problem.clusterId } }),
      finishedAt: new Date(),
    });
  }

  /** Finishes the run when nothing is pending (no window was held, so no resume will come). */
  private async finishIfDone(runId: string): Promise<void> {
    const run = await this.dependencies.outcomes.getRun(runId);
    if (run === undefined || run.counts.queued + run.counts.running > 0) return;
    await this.dependencies.outcomes.finishRun(runId);
  }
}

/** The pause item for a decision: status and the reason a reader needs. */
function pauseOutcome(acquired: Acquired, observed: string) {
  switch (acquired.decision) {
    case 'window-over':
      return {
        status: 'failed',
        errorCode: 'WINDOW_ENDED',
        errorMessage: "the window's resume had already started: not paused",
      } as const;
    case 'unknown':
      return {
        status: 'skipped',
        reason:
          `pause state ${observed}${observed === 'UNKNOWN' ? ' (the cluster is disconnected)' : ''}: ` +
          'paw cannot tell whether someone else paused it, so it leaves it alone',
      } as const;
    default:
      break;
  }
  if (acquired.owner === 'other') {
    return {
      status: 'skipped',
      reason: 'already paused by someone else: left alone (paw will not resume it)',
    } as const;
  }
  return {
    status: 'succeeded',
    reason:
      acquired.otherHolders > 0
        ? `paused; ${acquired.otherHolders} other window(s) hold it too: the last to end resumes it`
        : 'paused',
  } as const;
}
