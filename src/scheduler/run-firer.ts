import type { JobDefinition } from '../definitions/job-definition.js';
import type { Logger } from '../shared/logger.js';
import type { NewRun, RunStore } from '../outcomes/run-store.js';
import type { OutcomeStatus, RunTrigger } from '../outcomes/outcome-status.js';
import { formatDuration } from '../shared/duration.js';
import { runIdFor } from '../queue/run-id.js';
import { runJobData, type RunJobData } from '../queue/run-job.js';
import type { RunProducer } from '../queue/run-producer.js';
import { describeSkipMatch } from '../definitions/schedule/skip-days.js';
import { skipDaysOf } from '../definitions/schedule/definition-skip-days.js';
import type { PlannedFire } from './fire-plan.js';
import { createAndEnqueueRun } from './run-creation.js';
import { describePause, type SchedulePauses } from './schedule-pauses.js';

/** What a fire came to. */
export interface FireResult {
  readonly runId: string;
  /**
   * - `enqueued`: a new run, its job added;
   * - `re-enqueued`: the run existed, still queued (its first handler died before or after
   *   adding the job): the job was added again, which BullMQ ignores if it exists;
   * - `skipped`: the previous run of the definition is still active (overlap `skip`);
   * - `paused`: the definition's schedule is paused (`paw schedules pause`): recorded as a
   *   skipped run naming the pause;
   * - `calendar`: the fire falls on a day `schedule.skip` removes (a holiday, a change freeze):
   *   recorded as a skipped run naming the calendar;
   * - `missed`: too late, even for the catch-up window;
   * - `exists`: another handler already did it.
   */
  readonly result:
    'enqueued' | 're-enqueued' | 'skipped' | 'paused' | 'calendar' | 'missed' | 'exists';
  /** The run's status after the fire. */
  readonly status: OutcomeStatus;
  readonly reason?: string;
}

/**
 * Turns a fire into a run: records it in the outcome store and enqueues its job, or records it
 * as skipped (overlap) or missed. Every step can be repeated by another replica for the same
 * fire: the run id is derived from the definition and the fire time, the run is created only
 * if absent, and the job id is the run id. Used by the scheduler and by `paw run`.
 */
export class RunFirer {
  constructor(
    private readonly runs: RunStore,
    private readonly producer: RunProducer,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
    /** Paused schedules; a scheduled fire of a paused definition is recorded, not run. */
    private readonly pauses?: SchedulePauses,
  ) {}

  /**
   * Fires `definition` for `fireTime`. With overlap `skip` (and `ignoreOverlap` unset), a fire
   * whose previous run is still queued or running is recorded as skipped instead.
   */
  async fire(
    definition: JobDefinition,
    fireTime: Date,
    trigger: RunTrigger,
    options: {
      readonly ignoreOverlap?: boolean;
      /** Recorded on the new run as its reason (`retry of <runId>`: what links a retry). */
      readonly note?: string;
      /**
       * A run no worker has started by then is recorded as missed (`schedule.startDeadline`,
       * counted from the fire time by the scheduler; backfills and manual runs have none).
       */
      readonly startBy?: NewRun['startBy'];
      /** The run this one goes after (its job waits while that run is queued or running). */
      readonly after?: string;
    } = {},
  ): Promise<FireResult> {
    const runId = runIdFor(definition.id, fireTime, trigger);
    const base = { runId, definitionId: definition.id, kind: definition.kind, fireTime, trigger };

    // Calendars and pauses stop scheduled fires only: `paw run` is an operator's explicit request.
    const held = trigger === 'manual' ? undefined : await this.heldBack(definition, fireTime);
    if (held !== undefined) {
      const { created, status } = await this.runs.create({
        ...base,
        status: 'skipped',
        reason: held.reason,
      });
      if (created) {
        return this.report({ runId, result: held.result, status, reason: held.reason }, trigger);
      }
      return this.afterExisting(definition, runId, fireTime, trigger, status);
    }

    if (definition.schedule.overlap === 'skip' && options.ignoreOverlap !== true) {
      const previous = await this.runs.activeBefore(definition.id, fireTime);
      if (previous !== undefined && previous.runId !== runId) {
        const reason = `the previous run ${previous.runId} is still ${previous.status} (overlap: skip)`;
        const { created, status } = await this.runs.create({
          ...base,
          status: 'skipped',
          reason,
        });
        if (created) return this.report({ runId, result: 'skipped', status, reason }, trigger);
        return this.afterExisting(definition, runId, fireTime, trigger, status);
      }
    }

    const enqueued = await createAndEnqueueRun(
      this.runs,
      this.producer,
      {
        ...base,
        status: 'queued',
        notify: definition.notify !== undefined,
        ...(options.note === undefined ? {} : { reason: options.note }),
        ...(options.startBy === undefined ? {} : { startBy: options.startBy }),
      },
      this.jobData(definition, runId, fireTime, trigger, options.after),
    );
    const { status } = enqueued;
    if (enqueued.created) return this.report({ runId, result: 'enqueued', status }, trigger);
    return this.report(
      { runId, result: enqueued.enqueued ? 're-enqueued' : 'exists', status },
      trigger,
    );
  }

  /** Records a fire handled too late to run (`lateByMs` after its time) as missed. */
  async recordMissed(
    definition: JobDefinition,
    fire: Pick<PlannedFire, 'fireTime' | 'lateByMs' | 'missedBound'>,
  ): Promise<FireResult> {
    const { fireTime, lateByMs } = fire;
    const runId = runIdFor(definition.id, fireTime, 'catch-up');
    const reason =
      `no scheduler handled it until ${formatDuration(lateByMs)} after its time, ` +
      (fire.missedBound === 'start-deadline'
        ? `past its start deadline (${definition.schedule.startDeadline ?? '?'})`
        : `outside the catch-up window (${definition.schedule.catchUp})`);
    const { created, status } = await this.runs.create({
      runId,
      definitionId: definition.id,
      kind: definition.kind,
      fireTime,
      trigger: 'catch-up',
      status: 'missed',
      reason,
    });
    return this.report(
      created ? { runId, result: 'missed', status, reason } : { runId, result: 'exists', status },
      'catch-up',
    );
  }

  /**
   * Why a scheduled fire does not run now: a calendar removes its day, or the schedule is
   * paused; undefined when it runs.
   */
  async heldBack(
    definition: JobDefinition,
    fireTime: Date,
  ): Promise<{ result: 'calendar' | 'paused'; reason: string } | undefined> {
    const skipDay = skipDaysOf(definition.schedule).match(fireTime);
    if (skipDay !== undefined) {
      return {
        result: 'calendar',
        reason: describeSkipMatch(skipDay, definition.schedule.timezone),
      };
    }
    const pause = await this.pauses?.pauseAt(definition.id, this.clock());
    return pause === undefined ? undefined : { result: 'paused', reason: describePause(pause) };
  }

  private async afterExisting(
    definition: JobDefinition,
    runId: string,
    fireTime: Date,
    trigger: RunTrigger,
    status: OutcomeStatus,
  ): Promise<FireResult> {
    if (status !== 'queued') return this.report({ runId, result: 'exists', status }, trigger);
    await this.enqueue(definition, runId, fireTime, trigger);
    return this.report({ runId, result: 're-enqueued', status }, trigger);
  }

  private async enqueue(
    definition: JobDefinition,
    runId: string,
    fireTime: Date,
    trigger: RunTrigger,
  ): Promise<void> {
    await this.producer.enqueueRun(this.jobData(definition, runId, fireTime, trigger));
  }

  private jobData(
    definition: JobDefinition,
    runId: string,
    fireTime: Date,
    trigger: RunTrigger,
    after?: string,
  ): RunJobData {
    return runJobData(definition, { runId, fireTime, trigger, enqueuedAt: this.clock(), after });
  }

  private report(result: FireResult, trigger: RunTrigger): FireResult {
    // A calendar day is planned, not a problem: info.
    const level = ['missed', 'skipped', 'paused'].includes(result.result) ? 'warn' : 'info';
    this.logger[level](
      {
        runId: result.runId,
        trigger,
        result: result.result,
        ...(result.reason === undefined ? {} : { reason: result.reason }),
      },
      `fire ${result.result}`,
    );
    return result;
  }
}
