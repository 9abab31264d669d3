import type { RunJobDataOf } from '../../queue/run-job.js';
import { parseDuration } from '../../shared/duration.js';
import type { FailureFacts } from '../job-failure.js';
import type { JobStep } from '../settle-failure.js';
import { TargetFailures } from '../target-failures.js';
import type { Logger } from '../../shared/logger.js';
import { describePause, type PauseInfo } from '../../platform/records/sla-domain.js';
import { enqueueResume } from './resume-job.js';
import type { Acquired } from './sla-holds.js';
import type { SlaWindowDependencies } from './window-dependencies.js';
import { recordUnlessFinal, targetFields, windowItemKey } from './window-items.js';
import {
  pauseInfoOf,
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
 * is idempotent. An SLA Domain that cannot be paused does not stop the others: its failure is
 * recorded for good (permanent, or the job's last attempt) or left for the job's retry.
 */
export class WindowOpening {
  constructor(private readonly dependencies: SlaWindowDependencies) {}

  /**
   * Starts the window's run; false when it has already finished (or was skipped): nothing to do.
   */
  async start(runId: string, logger: Logger): Promise<boolean> {
    const started = await this.dependencies.runs.start(runId, { recordWithNextWrite: true });
    if (!started.started) {
      logger.info({ runId, status: started.previousStatus }, 'window run already finished');
    }
    return started.started;
  }

  /**
   * Records why a started window was not opened, when its job fails for good (a permanent
   * failure, or the last attempt), and finishes the run if nothing else is pending.
   */
  async recordNotOpened(runId: string, facts: FailureFacts): Promise<void> {
    await this.dependencies.items.record(runId, WINDOW_ITEM_KEY, {
      status: 'failed',
      action: 'pause',
      ...facts,
      finishedAt: new Date(),
    });
    await this.finishIfDone(runId);
  }

  /**
   * Opens the window of a started run. An SLA Domain that cannot be paused is settled on its
   * own (target-failures.ts): recorded for good, or left for the job's retry, which this throws
   * once every SLA Domain was tried.
   */
  async open(data: RunJobDataOf<'sla-window'>, step: JobStep): Promise<void> {
    const { items, crashPoints } = this.dependencies;
    const { runId, definition } = data;
    const { signal } = step;
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

    if (Date.now() >= windowEnd.getTime() || (await this.dependencies.holds.hasEnded(runId))) {
      await items.record(runId, WINDOW_ITEM_KEY, {
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

    const failures = new TargetFailures(step);
    for (const domain of resolved.domains) {
      try {
        await this.dependencies.domainLeases.hold(domain.id, `${runId}/pause`, signal, () =>
          this.pauseDomain(runId, domain, windowEnd, signal),
        );
      } catch (error) {
        await failures.settle(error, {
          doing: 'pausing an SLA Domain',
          context: { runId, slaDomainId: domain.id },
          recordFailed: async (facts) => {
            for (const target of domain.targets) {
              await recordUnlessFinal(items, runId, windowItemKey(target, 'pause'), {
                status: 'failed',
                ...targetFields(target, 'pause'),
                ...facts,
                finishedAt: new Date(),
              });
            }
          },
        });
      }
    }
    failures.rethrowLeftOver();
    await this.finishIfDone(runId);
  }

  private async pauseDomain(
    runId: string,
    domain: WindowDomain,
    windowEnd: Date,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const { platform, items, crashPoints, logger } = this.dependencies;
    // Read the state under the lease: no other window of paw changes it until we are done.
    const current = await platform.api.slaDomains.get(domain.id, signal);
    const decisions = new Map<WindowTarget, Acquired>();
    for (const target of domain.targets) {
      const observed = pauseStatusOf(current, target.clusterId);
      const acquired = await this.dependencies.holds.acquire(
        runId,
        target,
        windowEnd,
        observed,
        new Date(),
      );
      decisions.set(target, acquired);
      if (acquired.owner !== undefined) {
        // The intent, before the pause: this window's resume will release this hold.
        await recordUnlessFinal(items, runId, windowItemKey(target, 'resume'), {
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
      await recordUnlessFinal(items, runId, windowItemKey(target, 'pause'), {
        ...pauseOutcome(
          acquired,
          pauseStatusOf(current, target.clusterId),
          pauseInfoOf(current, target.clusterId),
        ),
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
    await recordUnlessFinal(this.dependencies.items, runId, key, {
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
    const run = await this.dependencies.runs.get(runId);
    if (run === undefined || run.counts.queued + run.counts.running > 0) return;
    await this.dependencies.runs.finish(runId);
  }
}

/** The pause item for a decision: status and the reason a reader needs. */
function pauseOutcome(acquired: Acquired, observed: string, pause: PauseInfo | undefined) {
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
      reason:
        `already paused by someone else${pause === undefined ? '' : ` (${describePause(pause)})`}: ` +
        'left alone (paw will not resume it)',
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
