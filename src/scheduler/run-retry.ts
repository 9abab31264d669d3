import type { Redis } from 'ioredis';
import type { JobDefinition } from '../definitions/job-definition.js';
import type { SnapshotDefinition } from '../definitions/snapshot-definition.js';
import { UsageError } from '../shared/usage-error.js';
import { silentLogger } from '../shared/logger.js';
import type { Outcomes } from '../outcomes/outcomes.js';
import { isActiveStatus, type ItemStatus } from '../outcomes/outcome-status.js';
import { runIdFor } from '../queue/run-id.js';
import { RunProducer } from '../queue/run-producer.js';
import type { RunQueues } from '../queue/run-queues.js';
import { RunFirer } from './run-firer.js';
import type { OperatorAction, OperatorActions } from '../outcomes/operator-actions.js';

/** What a retry takes again unless told otherwise: every item that ended without success. */
export const DEFAULT_RETRY_STATUSES: readonly ItemStatus[] = ['failed', 'timed-out', 'canceled'];

/** Why a run cannot be retried; each maps to a usage error (exit 2) or an HTTP status. */
export type RetryRefusal = 'unknown-run' | 'active' | 'not-snapshot' | 'no-definition';

/** A retry paw refuses to start, with the reason a person can act on. */
export class RetryRefusedError extends UsageError {
  constructor(
    readonly refusal: RetryRefusal,
    message: string,
  ) {
    super(message);
  }
}

export interface RetryRequest {
  readonly runId: string;
  /** The item statuses to take again; {@link DEFAULT_RETRY_STATUSES} when absent. */
  readonly statuses?: readonly ItemStatus[];
  /** Who asks (`user@host` from the CLI, the ops user from the dashboard). */
  readonly by: string;
  readonly via: OperatorAction['via'];
  /** Why, as the operator put it (recorded with the action and on the new run). */
  readonly reason?: string;
}

/**
 * What a retry came to:
 * - `started`: a new run over just those workloads;
 * - `exists`: this run was already retried for these statuses (a second click, two operators,
 *   a script run twice): the earlier retry is reported, nothing new starts. To retry again,
 *   retry the retry run;
 * - `nothing`: no item ended in those statuses.
 */
export interface RetryResult {
  readonly outcome: 'started' | 'exists' | 'nothing';
  readonly retryOf: string;
  readonly statuses: readonly ItemStatus[];
  readonly workloads: number;
  /** The retry run's id; null when there was nothing to retry. */
  readonly runId: string | null;
  readonly status?: string;
}

/** The claim a retry leaves, so that the same retry asked twice starts one run. */
interface RetryClaim {
  readonly runId: string;
  readonly fireMs: number;
  readonly workloads: number;
}

/**
 * Retrying the items of a snapshot run that did not succeed, as a new manual run of its
 * definition (as it is now) narrowed to those workloads and linked to the first by its reason
 * (`retry of <runId>: …`). The one home of `paw retry` and of the dashboard's retry button.
 *
 * Idempotent: the first retry of a run (for a set of statuses) claims it in Redis before it
 * fires, under a run id fixed at the claim; a repeat finds the claim and reports that run
 * (firing it if its first caller died between the claim and the fire). Every call is recorded
 * in the operator actions with who, why and what came of it.
 */
export class RunRetry {
  constructor(
    private readonly outcomes: Outcomes,
    /** For the retry claims (`<prefix>:ops:retries:<runId>`). */
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly queues: RunQueues,
    private readonly actions: OperatorActions,
    /** How long a claim is kept: the outcome store's retention, after which the run is gone too. */
    private readonly claimTtlSeconds: number,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Retries `request.runId` with `definitions` (the set loaded now). Throws RetryRefusedError. */
  async retry(definitions: readonly JobDefinition[], request: RetryRequest): Promise<RetryResult> {
    const statuses = request.statuses ?? DEFAULT_RETRY_STATUSES;
    let result: RetryResult;
    try {
      result = await this.retryRun(definitions, request, statuses);
    } catch (error) {
      if (error instanceof RetryRefusedError) {
        await this.record(request, 'refused', error.message);
      }
      throw error;
    }
    await this.record(
      request,
      result.outcome === 'started' ? 'done' : 'no change',
      result.outcome === 'started'
        ? `started ${result.runId ?? ''} over ${result.workloads} workload(s)`
        : result.outcome === 'exists'
          ? `already retried as ${result.runId ?? ''}`
          : `no item ended ${statuses.join(' or ')}`,
    );
    return result;
  }

  private async retryRun(
    definitions: readonly JobDefinition[],
    request: RetryRequest,
    statuses: readonly ItemStatus[],
  ): Promise<RetryResult> {
    const { runId } = request;
    const run = await this.outcomes.runs.get(runId);
    if (run === undefined) {
      throw new RetryRefusedError(
        'unknown-run',
        `no run has the id ${runId} (paw runs lists them)`,
      );
    }
    if (isActiveStatus(run.status)) {
      throw new RetryRefusedError(
        'active',
        `${runId} is still ${run.status}: retry it once it has ended`,
      );
    }
    if (run.kind !== 'snapshot') {
      throw new RetryRefusedError(
        'not-snapshot',
        `${runId} is a ${run.kind} run, which is one unit: run it again with paw run ${run.definitionId}`,
      );
    }
    const definition = definitions.find((candidate) => candidate.id === run.definitionId);
    if (definition === undefined) {
      throw new RetryRefusedError(
        'no-definition',
        `${run.definitionId}, the definition ${runId} ran, is not among the job definitions loaded now: nothing to retry it with`,
      );
    }
    if (definition.kind !== 'snapshot') {
      throw new RetryRefusedError(
        'not-snapshot',
        `${run.definitionId} is now a ${definition.kind} definition, not the snapshot one ${runId} ran: nothing to retry it with`,
      );
    }

    const base = { retryOf: runId, statuses };
    const claimField = [...statuses].sort().join(',');
    const earlier = await this.claimOf(runId, claimField);
    if (earlier !== undefined) {
      const fired = await this.fire(definition, undefined, run.runId, earlier, statuses, request);
      return {
        ...base,
        outcome: fired.created ? 'started' : 'exists',
        workloads: earlier.workloads,
        runId: earlier.runId,
        status: fired.status,
      };
    }

    const ids = await this.workloadsOf(runId, statuses);
    if (ids.length === 0) return { ...base, outcome: 'nothing', workloads: 0, runId: null };

    const fireTime = this.clock();
    const claim: RetryClaim = {
      runId: runIdFor(definition.id, fireTime, 'manual'),
      fireMs: fireTime.getTime(),
      workloads: ids.length,
    };
    const key = this.claimKey(runId);
    const won = await this.redis.hsetnx(key, claimField, JSON.stringify(claim));
    await this.redis.expire(key, this.claimTtlSeconds);
    // Another caller claimed it between the read and here: report (or finish) its retry.
    const winner = won === 1 ? claim : ((await this.claimOf(runId, claimField)) ?? claim);
    const fired = await this.fire(definition, ids, run.runId, winner, statuses, request);
    return {
      ...base,
      outcome: won === 1 && fired.created ? 'started' : 'exists',
      workloads: winner.workloads,
      runId: winner.runId,
      status: fired.status,
    };
  }

  /**
   * Fires the claimed retry under the run id the claim fixed. Safe to repeat: a claim found
   * without its run (the first caller died in between) is completed; otherwise nothing changes.
   */
  private async fire(
    definition: SnapshotDefinition,
    /** The workloads to retry; read again when absent (a repeat that finishes a dead caller's). */
    workloads: readonly string[] | undefined,
    retryOf: string,
    claim: RetryClaim,
    statuses: readonly ItemStatus[],
    request: RetryRequest,
  ): Promise<{ created: boolean; status: string }> {
    // Fired again even when the run exists: RunFirer adds nothing to an ended run, and the job
    // again (which BullMQ ignores) to a run still queued.
    const ids = workloads ?? (await this.workloadsOf(retryOf, statuses));
    const narrowed: SnapshotDefinition = { ...definition, targets: { ids: [...ids] } };
    const firer = new RunFirer(this.outcomes.runs, new RunProducer(this.queues), silentLogger());
    const why = request.reason === undefined ? '' : `; by ${request.by}: ${request.reason}`;
    const fired = await firer.fire(narrowed, new Date(claim.fireMs), 'manual', {
      ignoreOverlap: true,
      note: `retry of ${retryOf}: ${claim.workloads} workload(s) whose items ended ${statuses.join(' or ')}${why}`,
    });
    return { created: fired.result === 'enqueued', status: fired.status };
  }

  /** The workloads of `runId` whose items ended in `statuses`. */
  private async workloadsOf(runId: string, statuses: readonly ItemStatus[]): Promise<string[]> {
    const ids: string[] = [];
    for await (const item of this.outcomes.queries.items({ runId, statuses })) {
      ids.push(item.target ?? item.itemKey);
    }
    return ids;
  }

  private async claimOf(runId: string, field: string): Promise<RetryClaim | undefined> {
    const raw = await this.redis.hget(this.claimKey(runId), field);
    if (raw === null) return undefined;
    try {
      const parsed = JSON.parse(raw) as Partial<RetryClaim>;
      if (typeof parsed.runId !== 'string' || typeof parsed.fireMs !== 'number') return undefined;
      return { runId: parsed.runId, fireMs: parsed.fireMs, workloads: parsed.workloads ?? 0 };
    } catch {
      return undefined;
    }
  }

  /** `<prefix>:ops:retries:<runId>`: statuses → the retry claimed for them. */
  private claimKey(runId: string): string {
    return `${this.prefix}:ops:retries:${runId}`;
  }

  private async record(request: RetryRequest, outcome: string, detail: string): Promise<void> {
    await this.actions.record({
      user: request.by,
      via: request.via,
      action: 'retry run',
      target: request.runId,
      outcome,
      detail,
      ...(request.reason === undefined ? {} : { reason: request.reason }),
    });
  }
}
