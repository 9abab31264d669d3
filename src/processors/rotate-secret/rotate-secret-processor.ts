import { randomUUID } from 'node:crypto';
import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import { RUN_JOB_NAME, isRunOf, parseRunJobData, type RunJobDataOf } from '../../queue/run-job.js';
import { LeaseBusyError, withLease } from '../../redis/redis-lease.js';
import type {
  KindProcessor,
  KindProcessorFactory,
  WorkerDependencies,
} from '../../processing/kind-processor.js';
import {
  failureCode,
  failureMessage,
  isPermanentFailure,
  toJobError,
} from '../../processing/job-failure.js';
import { readJournal } from './rotation-journal.js';
import { ROTATION_LEASE, RotationKeys } from './rotation-keys.js';
import { SecretRotation } from './secret-rotation.js';
import { attemptNumber, isLastAttempt } from '../../processing/step-job.js';

/** The item key of a run's rotation (one per run). */
const ROTATION_ITEM_KEY = 'rotate';

/**
 * The `rotate-secret` kind: rotates a service account's secret and delivers it to the sink,
 * so that no crash at any step leaves the sink without a working secret (see
 * docs/secret-rotation.md). Rotations run one at a time across all workers (the queue's global
 * concurrency is 1), and each account's rotations and recoveries also take turns on a lease.
 * At start-up, the worker finishes rotations that a crash interrupted and no job will retry.
 */
export const createRotateSecretProcessor: KindProcessorFactory = (dependencies) => {
  const keys = new RotationKeys(dependencies.settings.redis.prefix);
  const rotation = new SecretRotation(dependencies, keys);

  const processor: KindProcessor = {
    kind: 'rotate-secret',
    async process(job: Job, _token: string | undefined, signal?: AbortSignal) {
      const finalAttempt = isLastAttempt(job);
      try {
        if (job.name !== RUN_JOB_NAME) {
          throw new UnrecoverableError(`the rotate-secret queue has no job named ${job.name}`);
        }
        const data = parseRunJobData(job.data);
        if (!isRunOf(data, 'rotate-secret')) {
          throw new UnrecoverableError(`a ${data.kind} run reached the rotate-secret queue`);
        }
        await runRotation(dependencies, keys, rotation, data, attemptNumber(job), {
          signal,
          finalAttempt,
        });
      } catch (error) {
        dependencies.logger.warn(
          {
            jobId: job.id,
            attempt: attemptNumber(job),
            finalAttempt,
            err: failureMessage(error),
          },
          'rotate-secret job failed',
        );
        throw toJobError(error);
      }
    },
    recover: (signal) => recoverInterruptedRotations(dependencies, keys, rotation, signal),
  };
  return processor;
};

async function runRotation(
  dependencies: WorkerDependencies,
  keys: RotationKeys,
  rotation: SecretRotation,
  data: RunJobDataOf<'rotate-secret'>,
  attempt: number,
  options: { readonly signal?: AbortSignal | undefined; readonly finalAttempt: boolean },
): Promise<void> {
  const { outcomes, crashPoints, logger } = dependencies;
  const { runId, definition } = data;
  const clientId = definition.serviceAccount.clientId;
  const sink = definition.sink.file;
  const started = await outcomes.startRun(runId);
  if (!started.started) {
    logger.info({ runId, status: started.previousStatus }, 'rotation run already finished');
    return;
  }
  const target = {
    target: clientId,
    targetName: clientId,
    targetType: 'SERVICE_ACCOUNT',
    action: 'rotate',
  } as const;
  try {
    await withLease(
      dependencies.redis,
      keys.lease(clientId),
      runId,
      { ...ROTATION_LEASE, signal: options.signal },
      async () => {
        const done = await outcomes.getItem(runId, ROTATION_ITEM_KEY);
        if (done?.status !== 'succeeded') {
          await outcomes.recordItem(runId, ROTATION_ITEM_KEY, {
            status: 'running',
            ...target,
            attempts: attempt,
            startedAt: done?.startedAt ?? new Date(),
          });
          const result = await rotation.rotate({ runId, clientId, sink }, options.signal);
          await outcomes.recordItem(runId, ROTATION_ITEM_KEY, {
            status: 'succeeded',
            ...target,
            attempts: attempt,
            finishedAt: new Date(),
            errorCode: null,
            errorMessage: null,
            reason: result.ownAccount
              ? "rotated paw's own secret; paw switched to the new one"
              : 'rotated; the new secret is in the sink',
            details: {
              sink,
              ownAccount: result.ownAccount,
              rotations: result.rotations,
              recoveredInterruptedRotation: result.recoveredInterrupted,
              ...(result.refusedAccessTokenOrigin === undefined
                ? {}
                : { refusedAccessTokenOrigin: result.refusedAccessTokenOrigin }),
            },
          });
          crashPoints.reach('rotate.after-outcome');
        }
        // The outcome is recorded: the journal (if this run's) is no longer needed.
        const journal = await readJournal(sink, { clientId }, logger);
        if (journal !== undefined && journal.runId === runId && journal.phase === 'sink-written') {
          await rotation.complete(journal);
        }
      },
    );
    await outcomes.finishRun(runId);
  } catch (error) {
    if (options.finalAttempt || isPermanentFailure(error)) {
      await outcomes.recordItem(runId, ROTATION_ITEM_KEY, {
        status: 'failed',
        ...target,
        attempts: attempt,
        finishedAt: new Date(),
        errorCode: failureCode(error),
        errorMessage: failureMessage(error),
        details: { sink },
      });
      await outcomes.finishRun(runId);
    } else {
      await outcomes.recordItem(runId, ROTATION_ITEM_KEY, {
        status: 'running',
        ...target,
        attempts: attempt,
        errorCode: failureCode(error),
        errorMessage: `attempt ${attempt} failed, will retry: ${failureMessage(error)}`,
      });
    }
    throw error;
  }
}

/**
 * The worker's start-up hook: finishes each rotation whose journal a crash left behind and no
 * job will retry, waiting its turn on the account's lease (a live rotation, or the retry of the
 * crashed one, goes first). A failure is logged per sink and does not stop the others.
 */
async function recoverInterruptedRotations(
  dependencies: WorkerDependencies,
  keys: RotationKeys,
  rotation: SecretRotation,
  signal: AbortSignal,
): Promise<void> {
  const { logger } = dependencies;
  for (const { sink, clientId } of await rotation.pendingSinks()) {
    if (signal.aborted) return;
    try {
      await withLease(
        dependencies.redis,
        keys.lease(clientId),
        `recovery-${randomUUID()}`,
        { ...ROTATION_LEASE, signal },
        async () => {
          const journal = await readJournal(sink, { clientId }, logger);
          if (journal === undefined) {
            await rotation.forgetSink(sink);
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
