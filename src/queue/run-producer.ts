import type { Redis } from 'ioredis';
import type { Logger } from '../shared/logger.js';
import { jobAddition, type JobAddition } from './run-job-addition.js';
import { RUN_JOB_NAME, storedRunJobData, type RunJobData } from './run-job.js';
import type { RunQueues } from './run-queues.js';

/** A run job's addition as a part of a script of another step, and where to run that script. */
export interface RunJobAddition extends JobAddition {
  /** The queues' connection. */
  readonly connection: Redis;
  /** The queue the job goes to. */
  readonly queue: string;
  readonly jobId: string;
}

/**
 * Adds run jobs to the queue of their kind: what the scheduler (and `paw run`) call at a fire.
 * The job id is the run id, so adding the same fire twice adds one job (BullMQ ignores an add
 * whose id exists). The data is stored as storedRunJobData makes it: its envelope checked (never
 * enqueue what a worker would reject), without the definition's `notify` key (its webhook URL
 * may hold a token; BullMQ stores job data in clear).
 */
export class RunProducer {
  constructor(
    private readonly queues: RunQueues,
    private readonly logger?: Logger,
  ) {}

  /** Adds the job. Returns the job id and the queue it went to. */
  async enqueueRun(data: RunJobData): Promise<{ jobId: string; queue: string }> {
    const valid = storedRunJobData(data);
    const queue = this.queues.queue(valid.kind);
    await queue.add(RUN_JOB_NAME, valid, { jobId: valid.runId });
    this.jobAdded(valid.runId, queue.name);
    return { jobId: valid.runId, queue: queue.name };
  }

  /**
   * The job's addition, for a script that adds it in a step of its own (the scheduler creates
   * the run's record in the same script: src/scheduler/run-creation.ts). Call {@link jobAdded}
   * when the script added it.
   */
  async runJobAddition(data: RunJobData): Promise<RunJobAddition> {
    const valid = storedRunJobData(data);
    const queue = this.queues.queue(valid.kind);
    const addition = await jobAddition(queue, {
      name: RUN_JOB_NAME,
      data: valid,
      jobId: valid.runId,
    });
    return {
      ...addition,
      connection: this.queues.connection,
      queue: queue.name,
      jobId: valid.runId,
    };
  }

  /** A run job went to `queue`. */
  jobAdded(jobId: string, queue: string): void {
    this.logger?.debug({ runId: jobId, queue }, 'run job added');
  }
}
