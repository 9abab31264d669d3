import {
  DelayedError,
  RateLimitError,
  UnrecoverableError,
  WaitingChildrenError,
  WaitingError,
  type Job,
} from 'bullmq';
import type { JobKind } from '../../definitions/job-definition.js';
import type { PlatformObserver } from '../../platform/platform-observer.js';
import { isLastAttempt } from '../step-job.js';

/**
 * How one call of a processor ended:
 * - `completed`: the job is done;
 * - `delayed`: a step job went back to wait (e.g. between two polls of a snapshot job), without
 *   holding a worker slot;
 * - `waiting`: it waits for child jobs, or was moved back to wait (rate limit);
 * - `retrying`: it failed and BullMQ will run it again (attempts left);
 * - `failed`: it failed for good (no attempts left, or a permanent error).
 */
type JobResult = 'completed' | 'delayed' | 'waiting' | 'retrying' | 'failed';

/** One processor call, as a worker reports it (metrics). */
interface JobEvent {
  readonly kind: JobKind;
  /** The BullMQ job name (`run` for the scheduler's run jobs; processors name their own). */
  readonly name: string;
  readonly result: JobResult;
  readonly durationMs: number;
}

/** Told about every processor call; must return quickly, and never fails the job. */
export interface JobObserver {
  onJobProcessed?(event: JobEvent): void;
}

/**
 * Runs `process` for `job` and reports how it ended to `observer`; the result or error passes
 * through unchanged.
 */
export async function observeJob<T>(
  observer: JobObserver | undefined,
  kind: JobKind,
  job: Job,
  process: () => Promise<T>,
): Promise<T> {
  if (observer?.onJobProcessed === undefined) return process();
  const started = performance.now();
  const report = (result: JobResult): void => {
    try {
      observer.onJobProcessed?.({
        kind,
        name: job.name,
        result,
        durationMs: performance.now() - started,
      });
    } catch {
      // Observing must never change how the job ends.
    }
  };
  try {
    const value = await process();
    report('completed');
    return value;
  } catch (error) {
    report(resultOfError(job, error));
    throw error;
  }
}

function resultOfError(job: Job, error: unknown): JobResult {
  if (error instanceof DelayedError) return 'delayed';
  if (
    error instanceof WaitingChildrenError ||
    error instanceof WaitingError ||
    error instanceof RateLimitError
  ) {
    return 'waiting';
  }
  if (error instanceof UnrecoverableError) return 'failed';
  return isLastAttempt(job) ? 'failed' : 'retrying';
}

/** The observers a worker process reports to: none of them may fail the work they observe. */
export interface WorkerObservers {
  /** Every platform request attempt and token refresh. */
  readonly platform?: PlatformObserver;
  /** Every processor call and how it ended. */
  readonly jobs?: JobObserver;
}
