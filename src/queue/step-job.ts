import { DelayedError, type Job } from 'bullmq';

/**
 * Ends this run of a BullMQ step job and brings it back at `until` (epoch ms): the job is moved
 * to the delayed set, so it holds no worker slot while it waits, and the move does not use up an
 * attempt. The next step starts from its outcome records: a step that has something new to
 * record moves its job in the same script instead (`ownedJobStep`, src/queue/delayed-move.ts).
 * Never returns.
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
export function lockToken(job: Job, token: string | undefined): string {
  if (token === undefined) {
    throw new Error(
      `job ${job.id ?? '?'} has no lock token: a step job cannot be delayed without it`,
    );
  }
  return token;
}
