import { withoutNotify } from '../definitions/notify-schema.js';
import type { JobDefinition } from '../definitions/job-definition.js';
import type { Logger } from '../log/logger.js';
import { RUN_JOB_NAME, runJobDataSchema, type RunJobData } from './run-job.js';
import type { RunQueues } from './run-queues.js';

/**
 * Adds run jobs to the queue of their kind: what the scheduler (and `paw run`) call at a fire.
 * The job id is the run id, so adding the same fire twice adds one job (BullMQ ignores an add
 * whose id exists).
 */
export class RunProducer {
  constructor(
    private readonly queues: RunQueues,
    private readonly logger?: Logger,
  ) {}

  /**
   * Validates `data` (never enqueue what a worker would reject) and adds the job. The
   * definition's `notify` key is left out (its webhook URL may hold a token; BullMQ stores job
   * data in clear). Returns the job id and the queue it went to.
   */
  async enqueueRun(data: RunJobData): Promise<{ jobId: string; queue: string }> {
    const valid = runJobDataSchema.parse({
      ...data,
      definition: withoutNotify(data.definition) as JobDefinition,
    });
    const queue = this.queues.queue(valid.kind);
    await queue.add(RUN_JOB_NAME, valid, { jobId: valid.runId });
    this.logger?.debug({ runId: valid.runId, queue: queue.name }, 'run job added');
    return { jobId: valid.runId, queue: queue.name };
  }
}
