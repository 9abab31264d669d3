import { createTask, type ScheduledTask } from 'node-cron';
import type { Settings } from '../config/settings-schema.js';
import { sameDefinition } from '../definitions/definition-set.js';
import type { JobDefinition } from '../definitions/job-definition.js';
import type { Logger } from '../shared/logger.js';
import { durationMs } from '../shared/duration.js';
import { CronSchedule } from '../definitions/schedule/cron-schedule.js';
import type { FireCoordinator } from './fire-coordinator.js';
import { jitterOffsetMs } from './fire-jitter.js';
import { planDueFires, type PlannedFire } from './fire-plan.js';
import type { FireResult, RunFirer } from './run-firer.js';

/**
 * How far back a scheduler looks for missed fires at start-up. Fires older than this (the
 * longest catch-up window) are not examined one by one: a seconds-level schedule down for a
 * year would otherwise mean millions of them.
 */
const MISSED_LOOKBACK_MS = 31 * 86_400_000;

/** The heartbeat: node-cron ticks every second; each tick asks which fires are due. */
const TICK_EXPRESSION = '* * * * * *';
const ERROR_LOG_INTERVAL_MS = 30_000;

export interface SchedulerOptions {
  readonly definitions: readonly JobDefinition[];
  readonly coordinator: FireCoordinator;
  readonly firer: RunFirer;
  readonly settings: Settings['scheduler'];
  readonly logger: Logger;
  /** The clock; tests pass a controlled one. */
  readonly clock?: () => Date;
  /** Called after each fire this replica handled (for status lines and tests). */
  readonly onFire?: (definition: JobDefinition, fire: PlannedFire, result: FireResult) => void;
}

/** What a start-up catch-up did. */
export interface CatchUpSummary {
  readonly at: Date;
  readonly enqueued: number;
  readonly missed: number;
  /** Missed fires counted but not recorded one by one (`scheduler.maxMissedRecorded`). */
  readonly unrecordedMissed: number;
}

interface Track {
  readonly definition: JobDefinition;
  readonly schedule: CronSchedule;
  readonly catchUpMs: number;
  /** `schedule.jitter` in ms (0: none). */
  readonly jitterMs: number;
  readonly startDeadlineMs: number | undefined;
  /** Fire times not yet due, in order; `next` is the first. */
  upcoming: Iterator<Date>;
  next: Date | undefined;
  /** Due fires this replica has not seen handled yet, with what to do with each. */
  pending: PlannedFire[];
  unrecordedMissed: number;
  lastErrorLogged: number;
}

/**
 * The scheduler: node-cron ticks every second, and each tick hands the fires that have come due
 * since the last one to the coordinator and the firer. What is due is decided by the pure
 * CronSchedule (DST-exact) and planDueFires (on time, caught up or missed), never by node-cron's
 * matcher, which skips DST gaps and never runs a missed execution.
 *
 * Because each tick handles everything due since the definition's cursor, a tick delayed by a
 * busy event loop, a Redis outage or a replica that died holding a lease loses nothing; fires
 * that became due while no scheduler ran are caught up at start-up (within `catchUp`) or
 * recorded as missed.
 */
export class Scheduler {
  private readonly tracks: Track[] = [];
  private readonly clock: () => Date;
  private task: ScheduledTask | undefined;
  /** Definitions to switch to at the next tick ({@link replaceDefinitions}). */
  private nextDefinitions: readonly JobDefinition[] | undefined;
  private ticking: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: SchedulerOptions) {
    this.clock = options.clock ?? (() => new Date());
  }

  /**
   * Initialises each definition's cursor (a new definition starts from now; a disabled one is
   * moved to now, so its fires are not missed later), catches up what became due while no
   * scheduler ran, and starts ticking unless `tick: false` (tests drive `tick()` themselves).
   */
  async start(options: { readonly tick?: boolean } = {}): Promise<CatchUpSummary> {
    const now = this.clock();
    for (const definition of this.options.definitions) {
      const track = await this.trackFor(definition, now);
      if (track !== undefined) this.tracks.push(track);
    }

    let enqueued = 0;
    let missed = 0;
    let unrecordedMissed = 0;
    for (const track of this.tracks) unrecordedMissed += this.collectDue(track, now);
    await Promise.all(
      this.tracks.map(async (track) => {
        const results = await this.handleGuarded(track);
        for (const result of results) {
          if (result.result === 'missed') missed++;
          else if (result.result === 'enqueued' || result.result === 're-enqueued') enqueued++;
        }
      }),
    );

    if (options.tick !== false && !this.stopped) {
      this.task = createTask(TICK_EXPRESSION, () => this.tick(), {
        name: 'paw-scheduler-tick',
        timezone: 'UTC',
        // Missed heartbeats need no warning: the next tick handles everything due since.
        suppressMissedWarning: true,
        logger: nodeCronLogger(this.options.logger),
      });
      await this.task.start();
    }
    return { at: now, enqueued, missed, unrecordedMissed };
  }

  /**
   * Runs `definitions` from the next tick on (a reload): a new definition starts from its cursor
   * (now, for one never seen), a changed one is planned again from its cursor with its new
   * schedule, an unchanged one keeps its state, and a removed or disabled one stops firing (its
   * cursor moves to now, as at start-up, so a later return does not count its absence as
   * missed fires). Runs already enqueued are not touched: their jobs carry their definition.
   */
  replaceDefinitions(definitions: readonly JobDefinition[]): void {
    this.nextDefinitions = definitions;
  }

  /**
   * Handles every fire due by `now` (default: the clock). Concurrent calls share one pass.
   */
  tick(now?: Date): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.ticking ??= this.tickOnce(now ?? this.clock()).finally(() => {
      this.ticking = undefined;
    });
    return this.ticking;
  }

  /** The next fire of each enabled definition (for status lines). */
  nextFires(): { definition: JobDefinition; next: Date | undefined }[] {
    return this.tracks.map((track) => ({ definition: track.definition, next: track.next }));
  }

  /** Stops ticking and waits for a tick in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.task !== undefined) await this.task.destroy();
    this.task = undefined;
    await this.ticking;
  }

  private async tickOnce(now: Date): Promise<void> {
    const replacement = this.nextDefinitions;
    if (replacement !== undefined) {
      this.nextDefinitions = undefined;
      await this.applyDefinitions(replacement, now);
    }
    await Promise.all(
      this.tracks.map(async (track) => {
        if (
          track.pending.length === 0 &&
          (track.next === undefined || dueAt(track, track.next) > now)
        )
          return;
        this.collectDue(track, now);
        await this.handleGuarded(track);
      }),
    );
  }

  /**
   * A definition's track, its cursor initialised (a new definition starts from now); a disabled
   * definition gets none and its cursor moves to now, so its fires are not missed later.
   */
  private async trackFor(definition: JobDefinition, now: Date): Promise<Track | undefined> {
    if (!definition.enabled) {
      await this.options.coordinator.advanceCursor(definition.id, now);
      return undefined;
    }
    const cursor = await this.options.coordinator.initCursor(definition.id, now);
    const examineFrom = new Date(Math.max(cursor.getTime(), now.getTime() - MISSED_LOOKBACK_MS));
    if (examineFrom > cursor) {
      this.options.logger.warn(
        {
          definitionId: definition.id,
          cursor: cursor.toISOString(),
          examineFrom: examineFrom.toISOString(),
        },
        'fires more than 31 days old were missed and are not recorded one by one',
      );
    }
    const schedule = CronSchedule.create(definition.schedule.cron, definition.schedule.timezone);
    const upcoming = schedule.firesAfter(examineFrom);
    const first = upcoming.next();
    return {
      definition,
      schedule,
      catchUpMs: durationMs(definition.schedule.catchUp),
      jitterMs: optionalDurationMs(definition.schedule.jitter) ?? 0,
      startDeadlineMs: optionalDurationMs(definition.schedule.startDeadline),
      upcoming,
      next: first.done === true ? undefined : first.value,
      pending: [],
      unrecordedMissed: 0,
      lastErrorLogged: 0,
    };
  }

  /** Switches to a reloaded set of definitions (see {@link replaceDefinitions}). */
  private async applyDefinitions(definitions: readonly JobDefinition[], now: Date): Promise<void> {
    const current = new Map(this.tracks.map((track) => [track.definition.id, track]));
    const tracks: Track[] = [];
    for (const definition of definitions) {
      const existing = current.get(definition.id);
      current.delete(definition.id);
      if (existing !== undefined && sameDefinition(existing.definition, definition)) {
        tracks.push(existing);
        continue;
      }
      const track = await this.trackFor(definition, now);
      if (track !== undefined) tracks.push(track);
    }
    for (const removed of current.keys()) {
      await this.options.coordinator.advanceCursor(removed, now);
    }
    this.tracks.splice(0, this.tracks.length, ...tracks);
  }

  /**
   * Moves the fires due by `now` from `upcoming` to `pending`, deciding for each (again, for
   * those already pending) whether it is on time, caught up or missed. Returns how many missed
   * fires were too many to record.
   */
  private collectDue(track: Track, now: Date): number {
    const due: Date[] = track.pending.map((fire) => fire.fireTime);
    const newlyDue = function* (this: void, t: Track): Generator<Date> {
      while (t.next !== undefined && dueAt(t, t.next) <= now) {
        yield t.next;
        const following = t.upcoming.next();
        t.next = following.done === true ? undefined : following.value;
      }
    };
    const plan = planDueFires(concat(due, newlyDue(track)), now, {
      catchUpMs: track.catchUpMs,
      misfireGraceMs: this.options.settings.misfireGraceMs,
      maxMissedRecorded: this.options.settings.maxMissedRecorded,
      delayMs: (fireTime) => jitterOffsetMs(track.definition.id, fireTime, track.jitterMs),
      ...(track.startDeadlineMs === undefined ? {} : { startDeadlineMs: track.startDeadlineMs }),
    });
    track.pending = [...plan.fires];
    track.unrecordedMissed += plan.unrecordedMissed;
    return plan.unrecordedMissed;
  }

  /** {@link handle}, logging (at most every 30 s per definition) instead of throwing. */
  private async handleGuarded(track: Track): Promise<FireResult[]> {
    try {
      return await this.handle(track);
    } catch (error) {
      const now = Date.now();
      if (now - track.lastErrorLogged >= ERROR_LOG_INTERVAL_MS) {
        track.lastErrorLogged = now;
        this.options.logger.error(
          { err: error, definitionId: track.definition.id, pending: track.pending.length },
          'could not handle due fires; retrying every second',
        );
      }
      return [];
    }
  }

  /** Claims the pending fires and, if this replica is elected, handles them in order. */
  private async handle(track: Track): Promise<FireResult[]> {
    const last = track.pending.at(-1);
    if (last === undefined) return [];
    const { coordinator, firer, logger } = this.options;
    const definitionId = track.definition.id;
    const claim = await coordinator.claim(definitionId, last.fireTime);
    if (claim.status === 'held') return [];
    if (claim.status === 'handled') {
      track.pending = [];
      track.unrecordedMissed = 0;
      return [];
    }

    const { lease } = claim;
    const cursor = claim.cursor?.getTime() ?? Number.NEGATIVE_INFINITY;
    const results: FireResult[] = [];
    let handledUpTo: Date | undefined;
    /** Keeps the fires not handled yet for a later tick, and hands back the lease. */
    const stopAfterHandled = async (): Promise<FireResult[]> => {
      const upTo = handledUpTo;
      if (upTo !== undefined) track.pending = track.pending.filter((fire) => fire.fireTime > upTo);
      await lease.complete(upTo);
      return results;
    };
    try {
      return await lease.renewedWhile(async () => {
        if (track.unrecordedMissed > 0) {
          logger.warn(
            { definitionId, missed: track.unrecordedMissed },
            'older missed fires are counted here but not recorded one by one',
          );
        }
        for (const fire of track.pending) {
          if (fire.fireTime.getTime() <= cursor) continue;
          if (lease.lost) {
            // Paused past the lease: another replica holds it now and handles the rest.
            logger.warn(
              { definitionId, handledUpTo: handledUpTo?.toISOString() },
              'lost the lease while handling due fires; another replica takes the rest over',
            );
            return stopAfterHandled();
          }
          const result =
            fire.action === 'enqueue'
              ? await firer.fire(
                  track.definition,
                  fire.fireTime,
                  fire.trigger,
                  startByOf(track, fire),
                )
              : await firer.recordMissed(track.definition, fire);
          results.push(result);
          handledUpTo = fire.fireTime;
          lease.handled(fire.fireTime);
          this.options.onFire?.(track.definition, fire, result);
        }
        await lease.complete(last.fireTime);
        track.pending = [];
        track.unrecordedMissed = 0;
        return results;
      });
    } catch (error) {
      await stopAfterHandled().catch(() => undefined);
      throw error;
    }
  }
}

/** When a fire is due: its time, plus its jitter. */
function dueAt(track: Track, fireTime: Date): Date {
  if (track.jitterMs === 0) return fireTime;
  return new Date(
    fireTime.getTime() + jitterOffsetMs(track.definition.id, fireTime, track.jitterMs),
  );
}

/** The `startBy` option of a scheduled fire: its time plus `schedule.startDeadline`, if set. */
function startByOf(track: Track, fire: PlannedFire): Parameters<RunFirer['fire']>[3] {
  const deadline = track.definition.schedule.startDeadline;
  if (track.startDeadlineMs === undefined || deadline === undefined) return {};
  return { startBy: { at: new Date(fire.fireTime.getTime() + track.startDeadlineMs), deadline } };
}

function optionalDurationMs(text: string | undefined): number | undefined {
  return text === undefined ? undefined : durationMs(text);
}

function* concat<T>(first: Iterable<T>, second: Iterable<T>): Generator<T> {
  yield* first;
  yield* second;
}

/** node-cron's log lines, into paw's logger. */
function nodeCronLogger(logger: Logger) {
  return {
    info: (message: string) => logger.debug({ source: 'node-cron' }, message),
    warn: (message: string) => logger.warn({ source: 'node-cron' }, message),
    error: (message: string | Error, error?: Error) =>
      logger.error({ source: 'node-cron', err: error ?? message }, String(message)),
    debug: (message: string | Error) => logger.debug({ source: 'node-cron' }, String(message)),
  };
}
