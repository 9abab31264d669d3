import type { NewRun, RunCreated, RunStore } from '../outcomes/run-store.js';
import { runCreated } from '../outcomes/run-store.js';
import { luaScript } from '../redis/lua-file.js';
import { ADD_STANDARD_JOB_FRAGMENTS, jobAdded } from '../queue/run-job-addition.js';
import type { RunJobData } from '../queue/run-job.js';
import type { RunProducer } from '../queue/run-producer.js';

const createRunAndAddJobScript = luaScript(
  'scheduler/lua/createRunAndAddJob-13.lua',
  ADD_STANDARD_JOB_FRAGMENTS,
);

/** What {@link createAndEnqueueRun} did. */
export interface RunEnqueued extends RunCreated {
  /** Whether the job was added (or found added already: BullMQ adds a job id once). */
  readonly enqueued: boolean;
}

/**
 * Creates a queued `run` in the outcome records and adds its job, in one script and one round
 * trip (createRunAndAddJob-13.lua): the job is added when the run was created, or exists and is
 * still queued. The scheduler composes the two parts, the record's (RunStore.creation) and the
 * job's (RunProducer.runJobAddition); neither knows the other.
 */
export async function createAndEnqueueRun(
  runs: RunStore,
  producer: RunProducer,
  run: NewRun & { readonly status: 'queued' },
  data: RunJobData,
): Promise<RunEnqueued> {
  const job = await producer.runJobAddition(data);
  const record = runs.creation(run);
  const [created, status, jobId] = (await createRunAndAddJobScript.run(
    job.connection,
    [...job.keys, ...record.keys],
    [...job.args, ...record.args],
  )) as [number, string, string];
  const enqueued = jobAdded(jobId, job);
  if (enqueued) producer.jobAdded(job.jobId, job.queue);
  return { ...runCreated([created, status]), enqueued };
}
