import { randomUUID } from 'node:crypto';
import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import type { Logger } from '../../shared/logger.js';
import { RUN_JOB_NAME, isRunOf, parseRunJobData, type RunJobDataOf } from '../../queue/run-job.js';
import { LeaseBusyError } from '../../redis/redis-lease.js';
import type { KindProcessor } from '../../queue/workers/kind-processor.js';
import { failureMessage } from '../job-failure.js';
import { retryError, settleFailure, type FailedStep, type JobStep } from '../settle-failure.js';
import { attemptNumber } from '../../queue/step-job.js';
import type { RotateSecretDependencies } from './rotation-dependencies.js';
import { readJournal } from './rotation-journal.js';
import { SecretRotation, type RotationResult } from './secret-rotation.js';

/** The item key of a run's rotation (one per run). */
const ROTATION_ITEM_KEY = 'rotate';

/** What a rotation's item says about its target, whatever the outcome. */
function rotationTarget(clientId: string) {
  return {
    target: clientId,
    targetName: clientId,
    targetType: 'SERVICE_ACCOUNT',
    action: 'rotate',
  } as const;
}

/**
 * The `rotate-secret` kind: rotates a service account's secret and delivers it to the sink,
 * so that no crash at any step leaves the sink without a working secret (see
 * docs/secret-rotation.md). Rotations run one at a time across all workers (the queue's global
 * concurrency is 1), and each account's rotations and recoveries also take turns on a lease.
 * At start-up, the worker finishes rotations that a crash interrupted and no job will retry.
 * Failures are settled by the one policy (src/job-kinds/settle-failure.ts).
 */
export function createRotateSecretProcessor(dependencies: RotateSecretDependencies): KindProcessor {
  const rotation = new SecretRotation(dependencies);

  const processor: KindProcessor = {
    kind: 'rotate-secret',
    async process(job: Job, token: string | undefined, signal?: AbortSignal) {
      const attempt = attemptNumber(job);
      const step: JobStep = {
        job,
        token,
        signal,
        logger: dependencies.logger.child({ jobId: job.id, attempt }),
      };
      // How a failure is recorded: not at all until the run has started.
      let settles: Pick<FailedStep, 'recordFailed' | 'retry'> = {};
      try {
        if (job.name !== RUN_JOB_NAME) {
          throw new UnrecoverableError(`the rotate-secret queue has no job named ${job.name}`);
        }
        const data = parseRunJobData(job.data);
        if (!isRunOf(data, 'rotate-secret')) {
          throw new UnrecoverableError(`a ${data.kind} run reached the rotate-secret queue`);
        }
        const started = await dependencies.runs.start(data.runId, {
          recordWithNextWrite: true,
        });
        if (!started.started) {
          step.logger.info(
            { runId: data.runId, status: started.previousStatus },
            'rotation run already finished',
          );
          return;
        }
        settles = rotationFailureRecords(dependencies, data, attempt, step.logger);
        await runRotation(dependencies, rotation, data, attempt, signal);
      } catch (error) {
        return settleFailure({ ...step, error, doing: 'the rotation', ...settles });
      }
    },
    recover: (signal) => recoverInterruptedRotations(dependencies, rotation, signal),
  };
  return processor;
}

/**
 * How a started rotation's failure is recorded: for good, as its item failed and the run
 * finished; or, when the job will be retried, as a note on its item that this attempt failed.
 */
function rotationFailureRecords(
  dependencies: RotateSecretDependencies,
  data: RunJobDataOf<'rotate-secret'>,
  attempt: number,
  logger: Logger,
): Pick<FailedStep, 'recordFailed' | 'retry'> {
  const { runs, items } = dependencies;
  const { runId, definition } = data;
  const clientId = definition.serviceAccount.clientId;
  const target = rotationTarget(clientId);
  return {
    recordFailed: async (facts) => {
      await items.record(runId, ROTATION_ITEM_KEY, {
        status: 'failed',
        ...target,
        attempts: attempt,
        finishedAt: new Date(),
        ...facts,
        details: { sink: definition.sink.file },
      });
      await runs.finish(runId);
    },
    retry: async (facts, error) => {
      await items.record(runId, ROTATION_ITEM_KEY, {
        status: 'running',
        ...target,
        attempts: attempt,
        errorCode: facts.errorCode,
        errorMessage: `attempt ${attempt} failed, will retry: ${facts.errorMessage}`,
      });
      logger.warn({ ...facts }, 'the rotation failed; retrying');
      throw retryError(error);
    },
  };
}

/** Rotates the secret of a started run, holding the account's lease, and finishes the run. */
async function runRotation(
  dependencies: RotateSecretDependencies,
  rotation: SecretRotation,
  data: RunJobDataOf<'rotate-secret'>,
  attempt: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  const { runs, items, crashPoints, logger } = dependencies;
  const { runId, definition } = data;
  const clientId = definition.serviceAccount.clientId;
  const sink = definition.sink.file;
  const target = rotationTarget(clientId);
  await dependencies.accountLeases.hold(clientId, runId, signal, async () => {
    const done = await items.get(runId, ROTATION_ITEM_KEY);
    if (done?.status !== 'succeeded') {
      await items.record(runId, ROTATION_ITEM_KEY, {
        status: 'running',
        ...target,
        attempts: attempt,
        startedAt: done?.startedAt ?? new Date(),
      });
      const result = await rotation.rotate({ runId, clientId, sink }, signal);
      await items.record(runId, ROTATION_ITEM_KEY, {
        status: 'succeeded',
        ...target,
        attempts: attempt,
        finishedAt: new Date(),
        errorCode: null,
        errorMessage: null,
        reason:
          (result.ownAccount
            ? "rotated paw's own secret; paw switched to the new one"
            : 'rotated; the new secret is in the sink') + suspendedPolicies(result),
        details: {
          sink,
          ownAccount: result.ownAccount,
          rotations: result.rotations,
          recoveredInterruptedRotation: result.recoveredInterrupted,
          ...(result.refusedAccessTokenUri === undefined
            ? {}
            : { refusedAccessTokenUri: result.refusedAccessTokenUri }),
          ...(result.suspendedTprPolicyIds === undefined
            ? {}
            : { suspendedTprPolicyIds: result.suspendedTprPolicyIds.join(', ') }),
        },
      });
      crashPoints.reach('rotate.after-outcome');
    }
    // The outcome is recorded: the journal (if this run's) is no longer needed.
    const journal = await readJournal(sink, { clientId }, logger);
    if (journal !== undefined && journal.runId === runId && journal.phase === 'sink-written') {
      await rotation.complete(journal);
    }
  });
  await runs.finish(runId);
}

/** What the outcome says of the quorum-authorization policies a rotation suspended, if any. */
function suspendedPolicies(result: RotationResult): string {
  const ids = result.suspendedTprPolicyIds ?? [];
  return ids.length === 0
    ? ''
    : `; it suspended ${ids.length} quorum-authorization (TPR) ${ids.length === 1 ? 'policy' : 'policies'} ` +
        `(${ids.join(', ')}): changes they guarded no longer wait for approval until someone reviews them in the platform`;
}

/**
 * The worker's start-up hook: finishes each rotation whose journal a crash left behind and no
 * job will retry, waiting its turn on the account's lease (a live rotation, or the retry of the
 * crashed one, goes first). A failure is logged per sink and does not stop the others.
 */
async function recoverInterruptedRotations(
  dependencies: RotateSecretDependencies,
  rotation: SecretRotation,
  signal: AbortSignal,
): Promise<void> {
  const { logger, pendingSinks } = dependencies;
  for (const { sink, clientId } of await pendingSinks.list()) {
    if (signal.aborted) return;
    try {
      await dependencies.accountLeases.hold(
        clientId,
        `recovery-${randomUUID()}`,
        signal,
        async () => {
          const journal = await readJournal(sink, { clientId }, logger);
          if (journal === undefined) {
            await pendingSinks.remove(sink);
            return;
          }
          const { rotated } = await rotation.finishInterrupted(journal, signal);
          logger.info(
            { clientId, sink, runId: journal.runId, rotated },
            'interrupted rotation finished at start-up',
          );
        },
      );
    } catch (error) {
      if (signal.aborted) return;
      logger.error(
        { clientId, sink, err: failureMessage(error), busy: error instanceof LeaseBusyError },
        'could not finish an interrupted rotation at start-up',
      );
    }
  }
}
