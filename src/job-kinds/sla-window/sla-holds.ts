import type { Redis } from 'ioredis';
import { luaScript } from '../../redis/lua-file.js';
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

/** A window takes its hold before pausing (see the file for what it answers). */
const acquireScript = luaScript('job-kinds/sla-window/lua/acquireHold-3.lua');

/** A window's end: what releasing its hold means (resume, leave alone, or others still hold). */
const releaseScript = luaScript('job-kinds/sla-window/lua/releaseHold-1.lua');

/** After the resume: drops this run's hold, and the record with it when no one else holds it. */
const finishScript = luaScript('job-kinds/sla-window/lua/finishHold-1.lua');

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
