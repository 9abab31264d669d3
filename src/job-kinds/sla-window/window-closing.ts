import { NotFoundError } from '../../platform/http/platform-errors.js';
import type { SlaDomain } from '../../platform/records/sla-domain.js';
import type { FailureFacts } from '../job-failure.js';
import type { JobStep } from '../settle-failure.js';
import { TargetFailures } from '../target-failures.js';
import type { ResumeJobData } from './resume-job.js';
import type { Released, RunHold } from './sla-holds.js';
import type { SlaWindowDependencies } from './window-dependencies.js';
import { recordUnlessFinal, targetFields, windowItemKey } from './window-items.js';
import { pauseStatusOf } from './window-target.js';

/** How long the "window ended" mark is kept: longer than any retry of the window's pause. */
const ENDED_MARK_SECONDS = 30 * 86_400;

/**
 * The end of a maintenance window (the delayed `resume` job its start enqueued):
 * 1. mark the window ended, so a pause still being retried can no longer happen;
 * 2. per SLA Domain this run holds, holding its lease: ask each hold what ending this window
 *    means (resume, still held by another open window, someone else's pause, or already
 *    released), resume the clusters that paw paused and no open window holds any more, record
 *    the resume items, then drop the holds.
 *
 * Safe to repeat at every step: the holds are dropped only after the resume and its record, so a
 * retry after a crash resumes again (resuming is idempotent) and finds the items already final.
 */
export class WindowClosing {
  constructor(private readonly dependencies: SlaWindowDependencies) {}

  /**
   * Closes the window of a run. An SLA Domain that cannot be resumed is settled on its own
   * (target-failures.ts): recorded for good in its resume items, or left for the job's retry,
   * which this throws once every SLA Domain was tried.
   */
  async close(data: ResumeJobData, step: JobStep): Promise<void> {
    const { signal } = step;
    const { crashPoints } = this.dependencies;
    const { runId } = data;
    await this.dependencies.holds.markEnded(runId, ENDED_MARK_SECONDS);
    crashPoints.reach('window.after-mark-ended');

    const byDomain = new Map<string, RunHold[]>();
    for (const hold of await this.dependencies.holds.holdsOf(runId)) {
      const list = byDomain.get(hold.slaDomainId) ?? [];
      list.push(hold);
      byDomain.set(hold.slaDomainId, list);
    }

    const failures = new TargetFailures(step);
    for (const [slaDomainId, holds] of byDomain) {
      try {
        await this.dependencies.domainLeases.hold(slaDomainId, `${runId}/resume`, signal, () =>
          this.resumeDomain(runId, slaDomainId, holds, signal),
        );
      } catch (error) {
        await failures.settle(error, {
          doing: 'resuming an SLA Domain',
          context: { runId, slaDomainId },
          consequence: 'it stays paused until resumed by hand or by the next window',
          recordFailed: async (facts) => {
            // The holds stay: the next window to end on this SLA Domain resumes it (see sla-holds.ts).
            for (const hold of holds) {
              await this.record(runId, hold, failedOutcome(facts));
              await this.dependencies.holds.forget(runId, hold);
            }
          },
        });
      }
    }
    failures.rethrowLeftOver();
    await this.finishIfDone(runId);
  }

  private async resumeDomain(
    runId: string,
    slaDomainId: string,
    holds: readonly RunHold[],
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const { platform, crashPoints, logger } = this.dependencies;
    const now = new Date();
    const plans = new Map<RunHold, Released>();
    for (const hold of holds)
      plans.set(hold, await this.dependencies.holds.release(runId, hold, now));
    const due = holds.filter((hold) => plans.get(hold)?.result === 'resume');

    let current: SlaDomain | undefined;
    let gone = false;
    let resumed: RunHold[] = [];
    if (due.length > 0) {
      try {
        current = await platform.api.slaDomains.get(slaDomainId, signal);
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
        gone = true;
      }
      if (current !== undefined) {
        // A cluster someone already resumed by hand needs nothing; UNKNOWN (disconnected) is
        // resumed all the same: paw owns that pause, and the platform keeps the state for the
        // cluster's return.
        const snapshot = current;
        resumed = due.filter((hold) => pauseStatusOf(snapshot, hold.clusterId) !== 'NOT_PAUSED');
        if (resumed.length > 0) {
          await platform.api.slaDomains.resume(
            slaDomainId,
            resumed.map((hold) => hold.clusterId),
            signal,
          );
        }
      }
    }
    crashPoints.reach('window.after-resume');

    for (const hold of holds) {
      const plan = plans.get(hold);
      if (plan === undefined) continue;
      await this.record(runId, hold, resumeOutcome(plan, gone, resumed.includes(hold)));
    }
    for (const hold of holds) {
      if (plans.get(hold)?.result !== 'not-held') await this.dependencies.holds.finish(runId, hold);
      await this.dependencies.holds.forget(runId, hold);
    }
    logger.info(
      {
        runId,
        slaDomainId,
        resumed: resumed.map((hold) => hold.clusterId),
        stillHeld: holds
          .filter((hold) => plans.get(hold)?.result === 'still-held')
          .map((hold) => hold.clusterId),
      },
      'window closed on SLA Domain',
    );
  }

  private async record(
    runId: string,
    hold: RunHold,
    outcome: ReturnType<typeof resumeOutcome> | ReturnType<typeof failedOutcome>,
  ): Promise<void> {
    if ((await this.dependencies.runs.get(runId)) === undefined) return; // trimmed
    await recordUnlessFinal(this.dependencies.items, runId, windowItemKey(hold, 'resume'), {
      ...outcome,
      ...targetFields(hold, 'resume'),
      finishedAt: new Date(),
    });
  }

  /**
   * Finishes the run once its items are all final. A run that never started (its `run` job has
   * not been taken yet) is left to that job, which records why the window never opened.
   */
  private async finishIfDone(runId: string): Promise<void> {
    const run = await this.dependencies.runs.get(runId);
    if (run === undefined || run.status !== 'running') return;
    if (run.counts.total === 0 || run.counts.queued + run.counts.running > 0) return;
    await this.dependencies.runs.finish(runId);
  }
}

/** The resume item of a hold whose SLA Domain could not be resumed, for good. */
function failedOutcome(facts: FailureFacts) {
  return { status: 'failed', ...facts } as const;
}

/** The resume item for what ending the window meant. */
function resumeOutcome(plan: Released, gone: boolean, resumedNow: boolean) {
  switch (plan.result) {
    case 'resume':
      if (gone) {
        return { status: 'skipped', reason: 'the SLA Domain no longer exists' } as const;
      }
      return resumedNow
        ? ({ status: 'succeeded', reason: 'resumed' } as const)
        : ({
            status: 'succeeded',
            reason: 'was no longer paused (someone resumed it during the window)',
          } as const);
    case 'still-held':
      return {
        status: 'skipped',
        reason:
          `still held by ${plan.otherHolders} other open window(s)` +
          (plan.owner === 'other'
            ? '; paused by someone else: paw will not resume it'
            : ': the last of them to end resumes it'),
      } as const;
    case 'left-alone':
      return {
        status: 'skipped',
        reason: 'was paused by someone else before the window: left paused',
      } as const;
    case 'not-held':
      return {
        status: 'succeeded',
        reason: 'already released: a window that ended later resumed it',
      } as const;
  }
}
