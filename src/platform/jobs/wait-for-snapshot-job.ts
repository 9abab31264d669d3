import { setTimeout as sleep } from 'node:timers/promises';
import { isRetryable } from '../http/is-retryable.js';
import type { JobPhase } from '../vocabulary/vocabulary.js';
import { hasEnded } from './job-status.js';
import type { SnapshotJob } from './snapshot-job.js';

interface JobUpdate {
  readonly job: SnapshotJob;
  readonly phase: JobPhase;
}

export interface WaitForSnapshotJobOptions {
  /** Reads the job's current record (e.g. `api.workloads.readSnapshotJob(tracking, signal)`). */
  readonly read: (signal?: AbortSignal) => Promise<SnapshotJob>;
  /** The pause before the next read, given the last record seen (poll-delay.ts decides for paw). */
  readonly nextDelay: (last: SnapshotJob | undefined) => number;
  /** The record the trigger returned, if any: no read is needed to know where it starts. */
  readonly initial?: SnapshotJob | undefined;
  /** Called after every read, for progress displays. */
  readonly onUpdate?: (update: JobUpdate) => void;
  /** Called when a read failed transiently and the wait goes on. */
  readonly onReadFailure?: (error: unknown, consecutiveFailures: number) => void;
  /** Stop waiting after this long (the job itself goes on); no limit when undefined. */
  readonly timeoutMs?: number | undefined;
  /** Transient read failures in a row before the wait gives up with the last one. */
  readonly maxConsecutiveFailures?: number;
  readonly signal?: AbortSignal | undefined;
}

export interface WaitResult {
  readonly job: SnapshotJob;
  /** The last phase seen; `in_progress` or `unrecognised` when the wait timed out. */
  readonly phase: JobPhase;
  readonly timedOut: boolean;
}

/**
 * Polls a snapshot job until it ends, for a caller that waits in process (`paw snapshot --wait`);
 * the worker polls through queue delays instead. An unrecognised status is reported as such: the
 * wait goes on while it may still be an unknown in-progress state, and ends with phase
 * `unrecognised` once the job has an `endTime` (terminal-looking) or the wait times out.
 */
export async function waitForSnapshotJob(options: WaitForSnapshotJobOptions): Promise<WaitResult> {
  const deadline =
    options.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + options.timeoutMs;
  const maxFailures = options.maxConsecutiveFailures ?? 5;
  let last: JobUpdate | undefined;
  if (options.initial !== undefined) {
    last = { job: options.initial, phase: options.initial.phase };
    options.onUpdate?.(last);
    const done = finished(last);
    if (done) return done;
  }
  let failures = 0;
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0 && last !== undefined) return { ...last, timedOut: true };
    await sleep(Math.min(options.nextDelay(last?.job), Math.max(0, remaining)), undefined, {
      signal: options.signal,
    });
    let job: SnapshotJob;
    try {
      job = await options.read(options.signal);
      failures = 0;
    } catch (error) {
      if (options.signal?.aborted || !isRetryable(error) || ++failures >= maxFailures) throw error;
      options.onReadFailure?.(error, failures);
      continue;
    }
    last = { job, phase: job.phase };
    options.onUpdate?.(last);
    const done = finished(last);
    if (done) return done;
  }
}

function finished(update: JobUpdate): WaitResult | undefined {
  return hasEnded(update.job) ? { ...update, timedOut: false } : undefined;
}
