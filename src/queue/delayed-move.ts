import type { Job } from 'bullmq';
// BullMQ's own moveToDelayed script (its includes resolved), so that the move composed with an
// outcome record is exactly the one Job.moveToDelayed runs. The file name carries its key count.
import { moveToDelayed } from 'bullmq/dist/esm/scripts/moveToDelayed-11.js';
import type { AtomicStep } from '../outcomes/outcome-store.js';

/** The keys BullMQ's moveToDelayed takes, in its order (RedisQueueBackend.moveToDelayedArgs). */
const KEY_TYPES = [
  'marker',
  'active',
  'prioritized',
  'delayed',
  undefined, // the job's own key
  'events',
  'meta',
  'stalled',
  'wait',
  'limiter',
  'pc',
] as const;

if (moveToDelayed.keys !== KEY_TYPES.length) {
  // A BullMQ upgrade changed the script's signature: fail at start-up, not on a job.
  throw new Error(
    `BullMQ's moveToDelayed takes ${moveToDelayed.keys} keys; paw's delayed-move.ts knows ${KEY_TYPES.length}: update it for this BullMQ version`,
  );
}

/** What BullMQ's script answers when it cannot move the job (its finishedErrors codes). */
const REFUSALS: Readonly<Record<number, string>> = {
  [-1]: 'the job no longer exists',
  [-2]: 'its lock is gone (another worker may have taken it as stalled)',
  [-3]: 'it is not active',
  [-6]: 'its lock belongs to another worker',
};

/**
 * BullMQ's move of an active step job to the delayed set until `until` (epoch ms), as an
 * {@link AtomicStep}: the outcome store runs it in the same script as an item's record, so the
 * item's new state and the job's wait happen together, in one round trip. The move uses no
 * attempt (as `job.moveToDelayed` does). Throw BullMQ's `DelayedError` afterwards.
 */
export function delayedMoveStep(job: Job, token: string, until: number): AtomicStep {
  const jobId = job.id;
  if (jobId === undefined) throw new Error('a job without an id cannot be moved');
  const queue = job.queueQualifiedName;
  const now = Date.now();
  return {
    name: 'bullmq-move-to-delayed',
    lua: moveToDelayed.content,
    keys: KEY_TYPES.map((type) => (type === undefined ? `${queue}:${jobId}` : `${queue}:${type}`)),
    // prefix, timestamp, job id, token, delay, skip attempt, fields to update, fetch next, opts
    args: [`${queue}:`, now, jobId, token, Math.max(0, Math.round(until) - now), '1', '', '0', ''],
    refused: (code) =>
      new Error(
        `job ${jobId} could not be moved to the delayed set: ${REFUSALS[code] ?? `BullMQ code ${code}`}`,
      ),
  };
}
