import type { Job } from 'bullmq';
// BullMQ's own moveToDelayed script (its includes resolved), so that the move composed with
// outcome records is exactly the one Job.moveToDelayed runs. The file name carries its key count.
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
 * The job is still this worker's: it exists and its lock holds this worker's token (KEYS[5] is
 * the job's key and ARGV[4] the token, in moveToDelayed's layout; BullMQ keeps the lock at
 * `<job key>:lock`). The job's count of stalls (BullMQ's `stc`) starts again: a step job that
 * records progress is not the poisoned job that count is there to stop, and a lane lives for a
 * whole run, through any number of worker kills.
 */
const OWNED_BY_THIS_WORKER = `
local jobKey = KEYS[5]
if redis.call('EXISTS', jobKey) ~= 1 then return -1 end
local lock = redis.call('GET', jobKey .. ':lock')
if not lock then return -2 end
if lock ~= ARGV[4] then return -6 end
redis.call('HDEL', jobKey, 'stc')
return 0
`;

/**
 * An active step job's part in a write of outcome records (OutcomeStore.recordItems): the
 * records are made only while the job is still this worker's (`token`). With
 * `moveToNextDue`, the job then moves to the delayed set until its lane's earliest item is due
 * (at once while the run's lane queue has items), as `job.moveToDelayed` would (no attempt
 * used); the step's result is 1 when it moved, 0 when it did not (not asked to, or nothing is
 * left in the lane nor in the queue: the job is done). Throw BullMQ's `DelayedError` after a
 * move.
 *
 * With `stayIfDueWithinMs` as well, a job due again within that long stays this worker's
 * instead (result 2: no move, its lock kept) unless another job of the queue waits for a
 * worker's slot or the queue is paused: moving gives them their turn, and with nobody waiting
 * it would only hand the job to whichever worker fetches first, whose JIT has to warm up to it
 * again (docs/worker.md, "A snapshot run").
 */
export function ownedJobStep(
  job: Job,
  token: string,
  options: { readonly moveToNextDue?: boolean; readonly stayIfDueWithinMs?: number } = {},
): AtomicStep {
  const jobId = job.id;
  if (jobId === undefined) throw new Error('a job without an id cannot be moved');
  const queue = job.queueQualifiedName;
  const move = options.moveToNextDue === true;
  return {
    name: move ? 'bullmq-owned-then-delayed' : 'bullmq-owned',
    check: OWNED_BY_THIS_WORKER,
    ...(move
      ? {
          then: `
-- The delay (ARGV[5] of moveToDelayed) is the time to the lane's earliest due item, as it is
-- now that the records are made; none while the run's lane queue has items to take.
local delay = 0
if redis.call('ZCARD', queueKey) == 0 then
  local first = redis.call('ZRANGE', laneKey, 0, 0, 'WITHSCORES')
  if not first[2] then return 0 end
  delay = math.max(0, math.floor(tonumber(first[2]) - tonumber(ARGV[2])))
end
ARGV[5] = tostring(delay)
-- Due again soon (ARGV[10], '' never): stay, unless a job waits for a slot (in the wait list,
-- prioritized, or delayed and due) or the queue is paused.
if ARGV[10] ~= '' and delay <= tonumber(ARGV[10]) then
  local dueScore = (tonumber(ARGV[2]) + 1) * 0x1000 - 1
  if redis.call('LLEN', KEYS[9]) == 0 and redis.call('ZCARD', KEYS[3]) == 0
    and #redis.call('ZRANGEBYSCORE', KEYS[4], 0, dueScore, 'LIMIT', 0, 1) == 0
    and redis.call('HEXISTS', KEYS[7], 'paused') == 0 then
    return 2
  end
end
local function bullmqMoveToDelayed()
${moveToDelayed.content}
end
local moved = bullmqMoveToDelayed()
if moved < 0 then return moved end
return 1
`,
        }
      : {}),
    keys: KEY_TYPES.map((type) => (type === undefined ? `${queue}:${jobId}` : `${queue}:${type}`)),
    // prefix, timestamp, job id, token, delay (set by \`then\`), skip attempt, fields to update,
    // fetch next, opts (moveToDelayed's nine); then paw's own: stay if due within (ms, '' never)
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
