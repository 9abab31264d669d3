import { failureFacts, isTransientFailure } from './job-failure.js';
import { failureVerdict, type JobStep, type RecordFailed } from './settle-failure.js';

/** One target of a step that failed (an SLA Domain a window could not pause). */
export interface FailedTarget {
  /** What was being done to it, for the log line ("pausing an SLA Domain"). */
  readonly doing: string;
  /** Fields that name the target in the log line (`{ runId, slaDomainId }`). */
  readonly context: Readonly<Record<string, unknown>>;
  /** What a failure for good leaves behind, for the operator reading the log. */
  readonly consequence?: string;
  /** Records this target's failure for good (its items). */
  readonly recordFailed: RecordFailed;
}

/**
 * The failure policy of a step that works on several targets (a window pauses or resumes several
 * SLA Domains): one target's failure never stops the others. Each failure is settled by the rule
 * of settle-failure.ts as it comes: recorded for good when it is permanent or this is the job's
 * last attempt; otherwise left for the job's retry (or, when the worker is shutting down, for
 * its resumption), recording nothing. Once every target was tried, {@link rethrowLeftOver} hands
 * the first failure left over to the job's own `settleFailure`, which retries (or resumes) the
 * job as a whole by the same rule; the targets settled for good are not tried again.
 */
export class TargetFailures {
  private leftOver: { readonly error: unknown } | undefined;

  constructor(private readonly step: JobStep) {}

  /** Settles one target's failure: records it for good, or leaves it for the job's next run. */
  async settle(error: unknown, target: FailedTarget): Promise<void> {
    const { job, signal, logger } = this.step;
    const facts = failureFacts(error);
    const verdict = failureVerdict(job, error, signal);
    if (verdict === 'fail') {
      const retryable = isTransientFailure(error);
      logger.error(
        { ...target.context, ...facts, retryable },
        `${target.doing} failed for good` +
          (target.consequence === undefined ? '' : `; ${target.consequence}`),
      );
      await target.recordFailed(facts, retryable);
      return;
    }
    logger.warn(
      { ...target.context, ...facts },
      verdict === 'shutdown'
        ? `${target.doing} was interrupted by the shutdown; the job resumes it`
        : `${target.doing} failed; the job will be retried`,
    );
    this.leftOver ??= { error };
  }

  /** Throws the first failure left for the job's next run, if any (for its `settleFailure`). */
  rethrowLeftOver(): void {
    if (this.leftOver !== undefined) throw this.leftOver.error;
  }
}
