import { Job, type Queue, type RedisQueueBackend } from 'bullmq';
// BullMQ's own addStandardJob script (its includes resolved), so that the job added in a script
// of another step is exactly the one Queue.add would add. The file name carries its key count.
import { addStandardJob } from 'bullmq/dist/esm/scripts/addStandardJob-9.js';

/** How many KEYS BullMQ's addStandardJob takes: what {@link JobAddition.keys} holds. */
const ADD_STANDARD_JOB_KEYS = 9;

if (addStandardJob.keys !== ADD_STANDARD_JOB_KEYS) {
  // A BullMQ upgrade changed the script's signature: fail at start-up, not at a fire.
  throw new Error(
    `BullMQ's addStandardJob takes ${addStandardJob.keys} keys; paw's run-job-addition.ts knows ${ADD_STANDARD_JOB_KEYS}: update it for this BullMQ version`,
  );
}

/**
 * The Lua a script that adds a job in a step of its own is given (as the fragment
 * `bullmqAddStandardJob`): BullMQ's addStandardJob as a function, which reads its KEYS[1..9] and
 * ARGV[1..3] by position and returns the job id (a negative code when BullMQ refused the job).
 */
export const ADD_STANDARD_JOB_FRAGMENTS: Readonly<Record<string, string>> = {
  bullmqAddStandardJob: `local function bullmqAddStandardJob()\n${addStandardJob.content}\nend`,
};

/**
 * A job's addition as a part of a script of another step (the scheduler's creation of a run:
 * src/scheduler/lua/createRunAndAddJob-13.lua): BullMQ's addStandardJob KEYS and ARGV, built by
 * BullMQ itself (Job, and the backend's own argument list, captured instead of sent), so its
 * options and data are exactly what `queue.add(name, data, { jobId })` would store.
 */
export interface JobAddition {
  /** addStandardJob's nine KEYS. */
  readonly keys: readonly (string | Buffer)[];
  /** Its three ARGV. */
  readonly args: readonly (string | Buffer)[];
}

/** `job`'s addition to `queue`: see {@link JobAddition}. */
export async function jobAddition(
  queue: Queue,
  job: { readonly name: string; readonly data: unknown; readonly jobId: string },
): Promise<JobAddition> {
  const opts = { ...queue.jobsOpts, jobId: job.jobId };
  const json = new Job(queue, job.name, job.data, opts, job.jobId).asJSON();
  let captured: { name: string; args: (string | Buffer)[] } | undefined;
  const capturing = {
    runCommand: (name: string, args: (string | Buffer)[]) => {
      captured = { name, args };
      return Promise.resolve(job.jobId);
    },
  };
  const backend = queue.backend;
  await backend.addJobToTransaction(
    capturing as unknown as Parameters<RedisQueueBackend['addJobToTransaction']>[0],
    json,
    job.jobId,
  );
  if (captured === undefined || !captured.name.startsWith('addStandardJob')) {
    // Run jobs have no delay, priority or parent: BullMQ adds them with addStandardJob.
    throw new Error(
      `BullMQ would add job ${job.jobId} with ${captured?.name ?? 'nothing'}, not addStandardJob`,
    );
  }
  return {
    keys: captured.args.slice(0, ADD_STANDARD_JOB_KEYS),
    args: captured.args.slice(ADD_STANDARD_JOB_KEYS),
  };
}

/**
 * Whether bullmqAddStandardJob's answer `jobId` says the job was added (or found added already:
 * BullMQ adds a job id once); '' when the script did not call it. Throws on BullMQ's refusal.
 */
export function jobAdded(jobId: string, job: { readonly jobId: string }): boolean {
  if (jobId.startsWith('-')) {
    throw new Error(`BullMQ refused to add job ${job.jobId} (code ${jobId})`);
  }
  return jobId !== '';
}
