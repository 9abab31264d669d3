import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import { RUN_JOB_NAME, isRunOf, parseRunJobData } from '../../queue/run-job.js';
import type { KindProcessor, KindProcessorFactory } from '../../processing/kind-processor.js';
import { failureMessage, toJobError } from '../../processing/job-failure.js';
import { RESUME_JOB_NAME, resumeJobDataSchema } from './resume-job.js';
import { SlaHolds } from './sla-holds.js';
import { WindowClosing } from './window-closing.js';
import { WindowKeys } from './window-keys.js';
import { WindowOpening } from './window-opening.js';
import { attemptNumber, isLastAttempt } from '../../processing/step-job.js';

/**
 * The `sla-window` kind: a `run` job opens the window (pauses), and the delayed `resume` job it
 * enqueues closes it at the window's end. See docs/sla-windows.md.
 */
export const createSlaWindowProcessor: KindProcessorFactory = (dependencies) => {
  const keys = new WindowKeys(dependencies.settings.redis.prefix);
  const holds = new SlaHolds(dependencies.redis, keys);
  const opening = new WindowOpening(dependencies, holds, keys);
  const closing = new WindowClosing(dependencies, holds, keys);

  const processor: KindProcessor = {
    kind: 'sla-window',
    async process(job: Job, _token: string | undefined, signal?: AbortSignal) {
      const logger = dependencies.logger.child({ jobId: job.id, job: job.name });
      const finalAttempt = isLastAttempt(job);
      try {
        if (job.name === RUN_JOB_NAME) {
          const data = parseRunJobData(job.data);
          if (!isRunOf(data, 'sla-window')) {
            throw new UnrecoverableError(`a ${data.kind} run reached the sla-window queue`);
          }
          await opening.open(data, { signal, finalAttempt });
        } else if (job.name === RESUME_JOB_NAME) {
          await closing.close(resumeJobDataSchema.parse(job.data), { signal, finalAttempt });
        } else {
          throw new UnrecoverableError(`the sla-window queue has no job named ${job.name}`);
        }
      } catch (error) {
        logger.warn(
          { attempt: attemptNumber(job), finalAttempt, err: failureMessage(error) },
          'sla-window job failed',
        );
        throw toJobError(error);
      }
    },
  };
  return processor;
};
