import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import { RUN_JOB_NAME, isRunOf, parseRunJobData } from '../../queue/run-job.js';
import type { KindProcessor } from '../../queue/workers/kind-processor.js';
import { settleFailure, type JobStep, type RecordFailed } from '../settle-failure.js';
import { attemptNumber } from '../../queue/step-job.js';
import { RESUME_JOB_NAME, resumeJobDataSchema } from './resume-job.js';
import { WindowClosing } from './window-closing.js';
import type { SlaWindowDependencies } from './window-dependencies.js';
import { WindowOpening } from './window-opening.js';

/**
 * The `sla-window` kind: a `run` job opens the window (pauses), and the delayed `resume` job it
 * enqueues closes it at the window's end. See docs/sla-windows.md. Failures are settled by the
 * one policy (src/job-kinds/settle-failure.ts): each SLA Domain's as it comes, the job's as a
 * whole here.
 */
export function createSlaWindowProcessor(dependencies: SlaWindowDependencies): KindProcessor {
  const opening = new WindowOpening(dependencies);
  const closing = new WindowClosing(dependencies);

  const processor: KindProcessor = {
    kind: 'sla-window',
    async process(job: Job, token: string | undefined, signal?: AbortSignal) {
      const step: JobStep = {
        job,
        token,
        signal,
        logger: dependencies.logger.child({
          jobId: job.id,
          job: job.name,
          attempt: attemptNumber(job),
        }),
      };
      // What a failure for good records: nothing until a window's run has started.
      let recordFailed: RecordFailed | undefined;
      try {
        if (job.name === RUN_JOB_NAME) {
          const data = parseRunJobData(job.data);
          if (!isRunOf(data, 'sla-window')) {
            throw new UnrecoverableError(`a ${data.kind} run reached the sla-window queue`);
          }
          if (!(await opening.start(data.runId, step.logger))) return;
          recordFailed = (facts) => opening.recordNotOpened(data.runId, facts);
          await opening.open(data, step);
        } else if (job.name === RESUME_JOB_NAME) {
          await closing.close(resumeJobDataSchema.parse(job.data), step);
        } else {
          throw new UnrecoverableError(`the sla-window queue has no job named ${job.name}`);
        }
      } catch (error) {
        return settleFailure({
          ...step,
          error,
          doing: job.name === RESUME_JOB_NAME ? 'closing the window' : 'opening the window',
          recordFailed,
        });
      }
    },
  };
  return processor;
}
