import type { Redis } from 'ioredis';
import { RedisScript } from '../../redis/redis-script.js';
import type { WindowKeys } from './window-keys.js';
import type { WindowTarget } from './window-target.js';

/**
 * A hold record (`WindowKeys.hold`) is a hash:
 * - `owner`: `paw` when paw paused the SLA Domain on that cluster (so paw resumes it when the
 *   last window holding it ends), `other` when it was already paused by someone else when the
 *   first window came (paw never resumes it);
 * - `h:<runId>` = the end of that run's window (epoch ms), one field per window holding it;
 * - `since`: when the record was created (for people reading Redis).
 *
 * The record is deleted when its last holder releases it. Every change is one script, so two
 * windows starting or ending at once never lose each other's hold.
 */

/**
 * A window takes its hold before pausing (the intent, recorded before the side effect).
 * KEYS: hold, runHolds, ended. ARGV: runId, windowEndMs, observed pause status, nowMs,
 * runHolds field, runHolds value.
 * Returns {decision, owner, other holders}:
 * - `window-over`: this run's window already ended (its resume started): do not pause;
 * - `held`: this run already holds it (a retry): the decision made then stands;
 * - `joined`: other windows hold it; `owner` says whether paw's pause stands (an outside
 *   pause that has since been lifted, observed NOT_PAUSED, becomes paw's);
 * - `created`: the first window: `paw` if it was NOT_PAUSED, `other` if PAUSED;
 * - `unknown`: nobody holds it and its state is UNKNOWN (or anything else): no record is made.
 */
const acquireScript = new RedisScript(
  'paw-sla-hold-acquire',
  `
if redis.call('EXISTS', KEYS[3]) == 1 then return {'window-over', '', 0} end
local me = 'h:' .. ARGV[1]
local function others()
  local count = 0
  for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
    if string.sub(field, 1, 2) == 'h:' and field ~= me then count = count + 1 end
  end
  return count
end
if redis.call('HEXISTS', KEYS[1], me) == 1 then
  return {'held', redis.call('HGET', KEYS[1], 'owner') or 'paw', others()}
end
local decision
local owner = redis.call('HGET', KEYS[1], 'owner')
if owner then
  decision = 'joined'
  if owner == 'other' and ARGV[3] == 'NOT_PAUSED' then
    owner = 'paw'
    redis.call('HSET', KEYS[1], 'owner', owner)
  end
else
  decision = 'created'
  if ARGV[3] == 'NOT_PAUSED' then owner = 'paw'
  elseif ARGV[3] == 'PAUSED' then owner = 'other'
  else return {'unknown', '', 0} end
  redis.call('HSET', KEYS[1], 'owner', owner, 'since', ARGV[4])
end
redis.call('HSET', KEYS[1], me, ARGV[2])
redis.call('HSET', KEYS[2], ARGV[5], ARGV[6])
return {decision, owner, others()}
`,
);

/**
 * A window's end: what releasing its hold means. KEYS: hold. ARGV: runId, nowMs.
 * Holders whose window has ended are dropped first (their resume is late or was lost; the
 * SLA Domain must stay paused only for windows still open). Returns {result, owner, others}:
 * - `not-held`: this run holds nothing here (never paused it, or already released);
 * - `still-held`: other open windows hold it: this run's hold is removed, nothing to resume;
 * - `resume`: this run is the last and paw owns the pause: resume it, then call finish (the
 *   hold stays until then, so a crash before the resume repeats it);
 * - `left-alone`: the last, but the pause was someone else's: the record is deleted, no resume.
 */
const releaseScript = new RedisScript(
  'paw-sla-hold-release',
  `
local me = 'h:' .. ARGV[1]
if redis.call('HEXISTS', KEYS[1], me) == 0 then return {'not-held', '', 0} end
local now = tonumber(ARGV[2])
local others = 0
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
  local field = fields[i]
  if string.sub(field, 1, 2) == 'h:' and field ~= me then
    if tonumber(fields[i + 1]) <= now then
      redis.call('HDEL', KEYS[1], field)
    else
      others = others + 1
    end
  end
end
local owner = redis.call('HGET', KEYS[1], 'owner') or 'paw'
if others > 0 then
  redis.call('HDEL', KEYS[1], me)
  return {'still-held', owner, others}
end
if owner == 'paw' then return {'resume', owner, 0} end
redis.call('DEL', KEYS[1])
return {'left-alone', owner, 0}
`,
);

/**
 * After the resume: drops this run's hold, and the record with it when no one else holds it.
 * KEYS: hold. ARGV: runId.
 */
const finishScript = new RedisScript(
  'paw-sla-hold-finish',
  `
local me = 'h:' .. ARGV[1]
redis.call('HDEL', KEYS[1], me)
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(field, 1, 2) == 'h:' then return 0 end
end
redis.call('DEL', KEYS[1])
return 1
`,
);

/** Who paused an SLA Domain on a cluster, as far as paw knows. */
export type PauseOwner = 'paw' | 'other';

type AcquireDecision = 'window-over' | 'held' | 'joined' | 'created' | 'unknown';

export interface Acquired {
  readonly decision: AcquireDecision;
  /** Undefined for `window-over` and `unknown` (no hold was taken). */
  readonly owner: PauseOwner | undefined;
  /** How many other windows hold it too. */
  readonly otherHolders: number;
}

type ReleaseResult = 'not-held' | 'still-held' | 'resume' | 'left-alone';

export interface Released {
  readonly result: ReleaseResult;
  /** Who paused it (undefined for `not-held`). */
  readonly owner: PauseOwner | undefined;
  readonly otherHolders: number;
}

/** A hold of a run, as its resume finds it. */
export interface RunHold extends WindowTarget {
  readonly field: string;
}

/**
 * Which windows hold each SLA Domain paused on each cluster, and whether paw owns the pause,
 * so that overlapping windows resume it only when the last one ends and a pause someone else
 * made is never lifted by paw. Callers hold the SLA Domain's lease around read-decide-act.
 */
export class SlaHolds {
  constructor(
    private readonly redis: Redis,
    private readonly keys: WindowKeys,
  ) {}

  /**
   * Records that `runId`'s window (ending at `windowEnd`) wants `target` paused, given the pause
   * status the platform reports now, and returns what to do (see the script above).
   */
  async acquire(
    runId: string,
    target: WindowTarget,
    windowEnd: Date,
    observed: string,
    now: Date,
  ): Promise<Acquired> {
    const reply = (await acquireScript.run(
      this.redis,
      [
        this.keys.hold(target.slaDomainId, target.clusterId),
        this.keys.runHolds(runId),
        this.keys.ended(runId),
      ],
      [
        runId,
        windowEnd.getTime(),
        observed,
        now.getTime(),
        holdField(target),
        JSON.stringify(target),
      ],
    )) as [AcquireDecision, string, number];
    const [decision, owner, otherHolders] = reply;
    return {
      decision,
      owner: owner === 'paw' || owner === 'other' ? owner : undefined,
      otherHolders: Number(otherHolders),
    };
  }

  /** What ending `runId`'s window means for `target` (see the script above). */
  async release(runId: string, target: WindowTarget, now: Date): Promise<Released> {
    const reply = (await releaseScript.run(
      this.redis,
      [this.keys.hold(target.slaDomainId, target.clusterId)],
      [runId, now.getTime()],
    )) as [ReleaseResult, string, number];
    const owner = reply[1] === 'paw' || reply[1] === 'other' ? reply[1] : undefined;
    return { result: reply[0], owner, otherHolders: Number(reply[2]) };
  }

  /** After a `resume`: drops the hold (and the record when nobody else holds it). */
  async finish(runId: string, target: WindowTarget): Promise<void> {
    await finishScript.run(
      this.redis,
      [this.keys.hold(target.slaDomainId, target.clusterId)],
      [runId],
    );
  }

  /** Removes a hold from the run's own list, once its release is complete. */
  async forget(runId: string, target: WindowTarget): Promise<void> {
    await this.redis.hdel(this.keys.runHolds(runId), holdField(target));
  }

  /** Every hold `runId` took, as its resume must release them. */
  async holdsOf(runId: string): Promise<RunHold[]> {
    const hash = await this.redis.hgetall(this.keys.runHolds(runId));
    return Object.entries(hash).map(([field, json]) => ({
      ...(JSON.parse(json) as WindowTarget),
      field,
    }));
  }

  /**
   * Marks `runId`'s window as ended: from now on its pauses are refused (`window-over`), so a
   * pause retried late cannot pause what no resume will release.
   */
  async markEnded(runId: string, keepSeconds: number): Promise<void> {
    await this.redis.set(this.keys.ended(runId), '1', 'EX', keepSeconds);
  }

  /** Whether `runId`'s window was marked as ended. */
  async hasEnded(runId: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.ended(runId))) === 1;
  }

  /** The hold record of `target`, for diagnostics and tests. */
  async describe(
    target: Pick<WindowTarget, 'slaDomainId' | 'clusterId'>,
  ): Promise<{ owner: PauseOwner; holders: Record<string, number> } | undefined> {
    const hash = await this.redis.hgetall(this.keys.hold(target.slaDomainId, target.clusterId));
    const owner = hash['owner'];
    if (owner !== 'paw' && owner !== 'other') return undefined;
    const holders: Record<string, number> = {};
    for (const [field, value] of Object.entries(hash)) {
      if (field.startsWith('h:')) holders[field.slice(2)] = Number(value);
    }
    return { owner, holders };
  }
}

function holdField(target: WindowTarget): string {
  return `${target.slaDomainId}|${target.clusterId}`;
}
