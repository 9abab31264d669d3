import type { Job } from 'bullmq';

/**
 * The limit handed to BullMQ's own stalled-job check: high enough never to apply. BullMQ fails a
 * job taken back from dead workers more than its limit before any processor runs (it moves the
 * job to wait with a deferred failure, and the next worker fails it without calling paw), so no
 * paw code would see that failure or record it: a snapshot run given up that way mid fan-out
 * stayed `running` for good. paw applies `worker.maxStalledCount` itself instead, in the worker's
 * processor ({@link stalledPastLimit}), where the kind's `givenUp` hook runs before the job fails.
 */
export const BULLMQ_STALL_LIMIT = Number.MAX_SAFE_INTEGER;

/**
 * Why `job` is given up on, when it has been taken back from dead workers more than
 * `maxStalledCount` times (BullMQ counts each take-back in the job's stalled counter; a step that
 * records progress starts that count again, delayedMove.lua); undefined while it may run.
 */
export function stalledPastLimit(job: Job, maxStalledCount: number): string | undefined {
  if (job.stalledCounter <= maxStalledCount) return undefined;
  return (
    `job ${job.id ?? '?'} was taken back from a dead worker ${job.stalledCounter} times, more ` +
    `than worker.maxStalledCount (${maxStalledCount}) allows: given up (a worker crashing in it?)`
  );
}
