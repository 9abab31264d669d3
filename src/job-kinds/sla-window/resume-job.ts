import { z } from 'zod';
import { RUN_ID_PATTERN, itemJobId } from '../../queue/run-id.js';
import type { RunQueues } from '../../queue/run-queues.js';
import type { SlaWindowDependencies } from './window-dependencies.js';

/** The BullMQ job name of a window's resume, on the `sla-window` queue beside its `run` job. */
export const RESUME_JOB_NAME = 'resume';

/**
 * A resume is retried longer than other jobs: giving up leaves an SLA Domain paused, taking no
 * backups. With the default backoff (2 s doubling, capped at 5 min, with jitter) 20 attempts
 * span between half an hour and an hour of a platform outage; after that the item is recorded failed and the hold stays, so
 * the next window to end on that SLA Domain resumes it.
 */
const MIN_RESUME_ATTEMPTS = 20;

/** The data of a resume job: which run's window ends, and when. Nothing secret. */
export const resumeJobDataSchema = z.strictObject({
  runId: z.string().regex(RUN_ID_PATTERN),
  definitionId: z.string().min(1),
  /** ISO 8601: the end of the window (fire time + duration). */
  windowEnd: z.iso.datetime(),
});

export type ResumeJobData = z.output<typeof resumeJobDataSchema>;

/** The resume job's id: one per run, so enqueueing it again (a retried pause) adds nothing. */
function resumeJobId(runId: string): string {
  return itemJobId(runId, RESUME_JOB_NAME);
}

/**
 * Enqueues the resume of a window as a delayed job due at its end, so that it happens even if
 * no scheduler runs then (only a worker is needed). Idempotent: the job id is derived from the
 * run. Called before the first pause, so no pause can exist without its resume.
 */
export async function enqueueResume(
  queues: RunQueues,
  settings: SlaWindowDependencies['settings'],
  data: ResumeJobData,
  now: Date,
): Promise<void> {
  const valid = resumeJobDataSchema.parse(data);
  const delay = Math.max(0, Date.parse(valid.windowEnd) - now.getTime());
  await queues.queue('sla-window').add(RESUME_JOB_NAME, valid, {
    jobId: resumeJobId(valid.runId),
    delay,
    attempts: Math.max(settings.queues.attempts, MIN_RESUME_ATTEMPTS),
  });
}
