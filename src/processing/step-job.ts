import { DelayedError, type Job } from 'bullmq';

/**
 * Ends this run of a BullMQ step job and brings it back at `until` (epoch ms): the job is moved
 * to the delayed set, so it holds no worker slot while it waits, and the move does not use up an
 * attempt. Save what the next step needs with `job.updateData` first. Never returns.
 */
export async function continueStepAt(
  job: Job,
  token: string | undefined,
  until: number,
): Promise<never> {
  if (token === undefined) {
    throw new Error(
      `job ${job.id ?? '?'} has no lock token: a step job cannot be delayed without it`,
    );
  }
  await job.moveToDelayed(Math.max(Date.now(), Math.round(until)), token);
  // BullMQ's way of saying "moved, not failed": the worker leaves the job where it now is.
  throw new DelayedError();
}

/** Whether this run of `job` is its last attempt: a failure now fails it for good. */
export function isLastAttempt(job: Job): boolean {
  return job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}
