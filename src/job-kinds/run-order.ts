import type { Job } from 'bullmq';
import { isActiveStatus } from '../outcomes/outcome-status.js';
import type { RunStore } from '../outcomes/run-store.js';
import { RUN_JOB_NAME, runJobGoesAfter } from '../queue/run-job.js';
import { continueStepAt } from '../queue/step-job.js';

/**
 * How often a run that goes after another looks again. A run it waits for takes minutes to
 * hours; a look is one read and, while it still waits, one move of its job.
 */
const LOOK_AGAIN_MS = 5_000;

/**
 * Puts a run job back to wait while the run it goes after (`after` in its data: the runs of a
 * backfill, one after another) is still queued or running; returns when it may start. The job
 * waits in the delayed set, holding no worker slot and using no attempt, and its run stays
 * `queued`. A run that is gone or ended lets it go.
 */
export async function waitForRunBefore(
  job: Job,
  token: string | undefined,
  runs: Pick<RunStore, 'get'>,
): Promise<void> {
  if (job.name !== RUN_JOB_NAME) return;
  const after = runJobGoesAfter(job.data);
  if (after === undefined) return;
  const before = await runs.get(after);
  if (before === undefined || !isActiveStatus(before.status)) return;
  await continueStepAt(job, token, Date.now() + LOOK_AGAIN_MS);
}
