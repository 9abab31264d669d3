import { withoutNotify } from '../definitions/notify-schema.js';
import type { JobDefinition } from '../definitions/job-definition.js';
import type { Logger } from '../log/logger.js';
import type { NewRun, OutcomeStore } from '../outcomes/outcome-store.js';
import { createRunAndAddJob, type RunEnqueued } from './run-enqueue-script.js';
import { RUN_JOB_NAME, checkRunJobEnvelope, type RunJobData } from './run-job.js';
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
   * Checks `data` (never enqueue what a worker would reject: the definition was validated when
   * it was loaded, the envelope is checked here) and adds the job. The
   * definition's `notify` key is left out (its webhook URL may hold a token; BullMQ stores job
   * data in clear). Returns the job id and the queue it went to.
   */
  async enqueueRun(data: RunJobData): Promise<{ jobId: string; queue: string }> {
    const valid = jobData(data);
    const queue = this.queues.queue(valid.kind);
    await queue.add(RUN_JOB_NAME, valid, { jobId: valid.runId });
    this.logger?.debug({ runId: valid.runId, queue: queue.name }, 'run job added');
    return { jobId: valid.runId, queue: queue.name };
  }

  /**
   * Creates `run` in the outcome store and adds its job, in one step (createRunAndAddJob): the
   * job is added when the run was created, or exists and is still queued.
   */
  async createAndEnqueueRun(
    store: OutcomeStore,
    run: NewRun & { readonly status: 'queued' },
    data: RunJobData,
  ): Promise<RunEnqueued> {
    const valid = jobData(data);
    const queue = this.queues.queue(valid.kind);
    const enqueued = await createRunAndAddJob(store, queue, this.queues.connection, run, {
      name: RUN_JOB_NAME,
      data: valid,
      jobId: valid.runId,
    });
    if (enqueued.enqueued) {
      this.logger?.debug({ runId: valid.runId, queue: queue.name }, 'run job added');
    }
    return enqueued;
  }
}

/** The job data as it is stored: its envelope checked, without the definition's `notify`. */
function jobData(data: RunJobData): RunJobData {
  return checkRunJobEnvelope({
    ...data,
    definition: withoutNotify(data.definition) as JobDefinition,
  });
}
