import type { Redis } from 'ioredis';
import { z } from 'zod';
import { luaScript } from '../redis/lua-file.js';

/** Sets a definition's pause unless one is in force; answers the pause in force, or nil. */
const pauseUnlessPausedScript = luaScript('scheduler/lua/pauseUnlessPaused-1.lua');

/** Why and by whom a definition's schedule is paused, and until when (if it ends by itself). */
const schedulePauseSchema = z.strictObject({
  /** Who paused it: `user@host` from `paw schedules pause`, or what the operator named. */
  by: z.string().min(1),
  /** ISO 8601: when it was paused. */
  at: z.iso.datetime(),
  reason: z.string().min(1),
  /** ISO 8601: the pause ends by itself at this time; absent: until `paw schedules unpause`. */
  until: z.iso.datetime().optional(),
});

export type SchedulePause = z.output<typeof schedulePauseSchema>;

/** What pausing or unpausing did: `changed` false when it was already so (both are idempotent). */
export interface PauseChange {
  readonly changed: boolean;
  /** The pause in force after the call (for pause: the earlier one if there was one). */
  readonly pause: SchedulePause | undefined;
}

/**
 * The paused definitions, in one Redis hash (definition id → pause), so that every scheduler
 * replica sees a pause at its next fire, and a pause survives restarts. A paused definition's
 * scheduled fires are recorded as skipped (paused) rather than run; a manual `paw run` still
 * runs, and whatever a run already started (a window's resume) still happens.
 */
export class SchedulePauses {
  private readonly key: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = `${prefix}:schedules:paused`;
  }

  /** The pause in force for `definitionId` at `at` (a pause whose `until` has passed is over). */
  async pauseAt(definitionId: string, at: Date): Promise<SchedulePause | undefined> {
    const raw = await this.redis.hget(this.key, definitionId);
    return activeAt(parsePause(raw), at);
  }

  /** Every pause in force at `at`, by definition id. */
  async allAt(at: Date): Promise<Map<string, SchedulePause>> {
    const entries = await this.redis.hgetall(this.key);
    const pauses = new Map<string, SchedulePause>();
    for (const [definitionId, raw] of Object.entries(entries)) {
      const pause = activeAt(parsePause(raw), at);
      if (pause !== undefined) pauses.set(definitionId, pause);
    }
    return pauses;
  }

  /**
   * Pauses `definitionId` unless a pause is already in force (which is kept: pausing is
   * idempotent, and the first reason stays on record). An expired pause is replaced.
   */
  async pause(definitionId: string, pause: SchedulePause): Promise<PauseChange> {
    const valid = schedulePauseSchema.parse(pause);
    // One script: two operators pausing at once leave the first pause on record, never a mix.
    const earlier = await pauseUnlessPausedScript.run(
      this.redis,
      [this.key],
      [definitionId, JSON.stringify(valid), new Date(valid.at).toISOString()],
    );
    if (typeof earlier === 'string') return { changed: false, pause: parsePause(earlier) };
    return { changed: true, pause: valid };
  }

  /** Lifts the pause of `definitionId`; `changed` false when none was in force. */
  async unpause(definitionId: string, at: Date): Promise<PauseChange> {
    const current = activeAt(parsePause(await this.redis.hget(this.key, definitionId)), at);
    const removed = await this.redis.hdel(this.key, definitionId);
    return { changed: removed === 1 && current !== undefined, pause: undefined };
  }
}

function parsePause(raw: string | null): SchedulePause | undefined {
  if (raw === null) return undefined;
  try {
    return schedulePauseSchema.parse(JSON.parse(raw));
  } catch {
    return undefined;
  }
}

function activeAt(pause: SchedulePause | undefined, at: Date): SchedulePause | undefined {
  if (pause === undefined) return undefined;
  if (pause.until !== undefined && Date.parse(pause.until) <= at.getTime()) return undefined;
  return pause;
}

/** How a pause reads in a run's reason and in listings. */
export function describePause(pause: SchedulePause): string {
  return (
    `paused by ${pause.by} at ${pause.at}: ${pause.reason}` +
    (pause.until === undefined ? '' : ` (until ${pause.until})`)
  );
}
