import { DelayedError, type Job } from 'bullmq';
import type { ItemUpdate } from '../outcomes/outcome-records.js';
import type { OutcomeStore } from '../outcomes/outcome-store.js';
import { delayedMoveStep } from '../queue/delayed-move.js';

/**
 * Ends this run of a BullMQ step job and brings it back at `until` (epoch ms): the job is moved
 * to the delayed set, so it holds no worker slot while it waits, and the move does not use up an
 * attempt. The next step starts from the item's outcome record: when it has something new to
 * record, use {@link recordAndContinueStepAt}. Never returns.
 */
export async function continueStepAt(
  job: Job,
  token: string | undefined,
  until: number,
): Promise<never> {
  await job.moveToDelayed(Math.max(Date.now(), Math.round(until)), lockToken(job, token));
  // BullMQ's way of saying "moved, not failed": the worker leaves the job where it now is.
  throw new DelayedError();
}

/** What {@link recordAndContinueStepAt} records. */
export interface StepRecord {
  readonly runId: string;
  readonly itemKey: string;
  readonly update: ItemUpdate;
  /** Called once the record and the move are done (a crash point, in tests). */
  readonly onRecorded?: () => void;
}

/**
 * {@link continueStepAt}, recording the item's new state in the same step: one script writes the
 * outcome record and moves the job to the delayed set, so the two cannot come apart (a crash
 * leaves both or neither) and a step costs one round trip, not two. Never returns.
 */
export async function recordAndContinueStepAt(
  outcomes: OutcomeStore,
  record: StepRecord,
  job: Job,
  token: string | undefined,
  until: number,
): Promise<never> {
  await outcomes.recordItem(record.runId, record.itemKey, record.update, {
    along: delayedMoveStep(job, lockToken(job, token), until),
  });
  record.onRecorded?.();
  throw new DelayedError();
}

/**
 * How long a step job interrupted by shutdown waits before another worker takes it up: long
 * enough for this process to let go of it, short enough that nobody notices.
 */
const RESUME_AFTER_SHUTDOWN_MS = 1_000;

/**
 * Ends this run of a step job because the worker is shutting down: the job comes back in a
 * second, without using an attempt, and whatever it was doing is reconciled from its record.
 */
export function continueAfterShutdown(job: Job, token: string | undefined): Promise<never> {
  return continueStepAt(job, token, Date.now() + RESUME_AFTER_SHUTDOWN_MS);
}

/** Which attempt this run of `job` is, from 1 (BullMQ counts the failed ones before it). */
export function attemptNumber(job: Job): number {
  return job.attemptsMade + 1;
}

/** Whether this run of `job` is its last attempt: a failure now fails it for good. */
export function isLastAttempt(job: Job): boolean {
  return attemptNumber(job) >= (job.opts.attempts ?? 1);
}

/** The job's lock token, which moving it needs (BullMQ passes it to processors that take it). */
function lockToken(job: Job, token: string | undefined): string {
  if (token === undefined) {
    throw new Error(
      `job ${job.id ?? '?'} has no lock token: a step job cannot be delayed without it`,
    );
  }
  return token;
}
