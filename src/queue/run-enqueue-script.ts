import { Job, type Queue, type RedisQueueBackend } from 'bullmq';
import type { Redis } from 'ioredis';
// BullMQ's own addStandardJob script (its includes resolved), so that the job added with a run's
// record is exactly the one Queue.add would add. The file name carries its key count.
import { addStandardJob } from 'bullmq/dist/esm/scripts/addStandardJob-9.js';
import { createRunFunction } from '../outcomes/outcome-scripts.js';
import { runCreated, type NewRun, type OutcomeStore } from '../outcomes/outcome-store.js';
import type { OutcomeStatus } from '../outcomes/outcome-status.js';
import { RedisScript } from '../redis/redis-script.js';

if (addStandardJob.keys !== 9) {
  // A BullMQ upgrade changed the script's signature: fail at start-up, not at a fire.
  throw new Error(
    `BullMQ's addStandardJob takes ${addStandardJob.keys} keys; paw's run-enqueue-script.ts knows 9: update it for this BullMQ version`,
  );
}

/**
 * Creates a run's record and adds its BullMQ job in one script: the run is created unless it
 * exists, and the job is added when the run was created, or exists and is still queued (a
 * scheduler that died between the two steps before). KEYS: BullMQ's 9, then the run-creating
 * script's 4. ARGV: BullMQ's 3, then the run-creating script's.
 * Returns {1 created | 0 existed, the run's status, the job id ('' when none was added)}.
 */
const createRunAndAddJobScript = new RedisScript(
  'paw-create-run-and-add-job',
  `${createRunFunction}
local function bullmqAddStandardJob()
${addStandardJob.content}
end
local fields = {}
for i = 8, #ARGV do fields[#fields + 1] = ARGV[i] end
local run = pawCreateRun(KEYS[10], KEYS[11], KEYS[12], KEYS[13], ARGV[4], ARGV[5], ARGV[6], ARGV[7], fields)
if run[1] == 0 and run[2] ~= 'queued' then return {run[1], run[2], ''} end
return {run[1], run[2], tostring(bullmqAddStandardJob())}
`,
);

/** What {@link createRunAndAddJob} did. */
export interface RunEnqueued {
  readonly created: boolean;
  readonly status: OutcomeStatus;
  /** Whether the job was added (or found added already: BullMQ adds a job id once). */
  readonly enqueued: boolean;
}

/**
 * A queued run's record and its job, in one round trip and one script instead of two: what a
 * fire costs Redis is most of what the scheduler costs (issue 12's `bench queue`). The job is
 * built by BullMQ itself (Job, and the backend's own argument list for addStandardJob, captured
 * instead of sent), so its options and data are exactly what `queue.add(name, data, { jobId })`
 * would store.
 */
export async function createRunAndAddJob(
  store: OutcomeStore,
  queue: Queue,
  connection: Redis,
  run: NewRun,
  job: { readonly name: string; readonly data: unknown; readonly jobId: string },
): Promise<RunEnqueued> {
  const bullmq = await addStandardJobArgs(queue, job);
  const record = store.runCreation(run);
  const [created, status, jobId] = (await createRunAndAddJobScript.run(
    connection,
    [...bullmq.keys, ...record.keys],
    [...bullmq.args, ...record.args],
  )) as [number, string, string];
  if (jobId.startsWith('-')) {
    throw new Error(`BullMQ refused to add job ${job.jobId} (code ${jobId})`);
  }
  return { ...runCreated([created, status]), enqueued: jobId !== '' };
}

/** BullMQ's KEYS and ARGV for adding `job` to `queue`, as its backend builds them. */
async function addStandardJobArgs(
  queue: Queue,
  job: { readonly name: string; readonly data: unknown; readonly jobId: string },
): Promise<{ keys: (string | Buffer)[]; args: (string | Buffer)[] }> {
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
  return { keys: captured.args.slice(0, 9), args: captured.args.slice(9) };
}
