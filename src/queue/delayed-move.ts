import type { Job } from 'bullmq';
// BullMQ's own moveToDelayed script (its includes resolved), so that the move composed with
// a step job's records is exactly the one Job.moveToDelayed runs. The file name carries its key count.
import { moveToDelayed } from 'bullmq/dist/esm/scripts/moveToDelayed-11.js';

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

/** BullMQ's codes (its ErrorCode, finishedErrors) for a job whose lock is not the caller's. */
const LOCK_GONE = -2;
const LOCK_NOT_OURS = -6;

/** What BullMQ's scripts answer when a job is not the caller's to move (its finishedErrors codes). */
const REFUSALS: Readonly<Record<number, string>> = {
  [-1]: 'the job no longer exists',
  [LOCK_GONE]: 'its lock is gone (another worker may have taken it as stalled)',
  [-3]: 'it is not active',
  [LOCK_NOT_OURS]: 'its lock belongs to another worker',
};

/**
 * The Lua a script that includes src/queue/lua/includes/delayedMove.lua (which defines
 * `pawJobOwned` and `pawMoveToDelayed`; its header says what such a script takes) is given:
 * BullMQ's moveToDelayed as a function.
 */
export const DELAYED_MOVE_FRAGMENTS: Readonly<Record<string, string>> = {
  bullmqMoveToDelayed: `local function bullmqMoveToDelayed()\n${moveToDelayed.content}\nend`,
};

/**
 * An active step job's part in a script that records its progress (delayedMove.lua):
 * the records are made only while the job is still this worker's (`token`), and with
 * `moveToNextDue`, the job then moves to the delayed set until it is next due, as
 * `job.moveToDelayed` would (no attempt used). Throw BullMQ's `DelayedError` after a move.
 */
export interface OwnedJobStep {
  /** moveToDelayed's eleven KEYS, in its order. */
  readonly keys: readonly string[];
  /**
   * moveToDelayed's nine ARGV (the delay is the script's to set), then '1' to move the job after
   * the records ('0' to keep it), then the stay-if-due-within time (ms; '' never).
   */
  readonly args: readonly (string | number)[];
  /** The error for a refusal: the job was not this worker's (BullMQ's code). */
  readonly refused: (code: number) => Error;
}

/**
 * This worker's active step `job` (its lock `token`) as a part of a script that records its
 * progress: see {@link OwnedJobStep}. With `stayIfDueWithinMs` as well, a job due again within
 * that long stays this worker's unless another job waits for a slot or the queue is paused
 * (pawMoveToDelayed in delayedMove.lua).
 */
export function ownedJobStep(
  job: Job,
  token: string,
  options: { readonly moveToNextDue?: boolean; readonly stayIfDueWithinMs?: number } = {},
): OwnedJobStep {
  const jobId = job.id;
  if (jobId === undefined) throw new Error('a job without an id cannot be moved');
  const queue = job.queueQualifiedName;
  return {
    keys: KEY_TYPES.map((type) => (type === undefined ? `${queue}:${jobId}` : `${queue}:${type}`)),
    // prefix, timestamp, job id, token, delay (set by the script), skip attempt, fields to
    // update, fetch next, opts (moveToDelayed's nine); then whether to move, and stay if due within
    args: [
      `${queue}:`,
      Date.now(),
      jobId,
      token,
      0,
      '1',
      '',
      '0',
      '',
      options.moveToNextDue === true ? '1' : '0',
      options.stayIfDueWithinMs ?? '',
    ],
    refused: (code) =>
      new LostJobError(
        `job ${jobId} is no longer this worker's, so nothing was recorded: ${REFUSALS[code] ?? `BullMQ code ${code}`}`,
      ),
  };
}

/**
 * Whether an error BullMQ raised finishing a job (moving it to completed, failed or delayed) says
 * the job was no longer this worker's: its lock was gone or another worker's. That is how a
 * worker that lost a lock (its event loop or Redis too slow for `worker.lockDurationMs`) learns
 * it, after another worker has taken the job over; nothing is wrong with the connection.
 */
export function isLostLockError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && (code === LOCK_GONE || code === LOCK_NOT_OURS);
}

/**
 * A step job is no longer this worker's (its lock expired and another worker took it, or it is
 * gone): whatever it was about to record is the new owner's to find out again.
 */
export class LostJobError extends Error {
  override readonly name = 'LostJobError';
}
