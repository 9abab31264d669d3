import { z } from 'zod';

/** The BullMQ job name of one workload's snapshot in a run (the run itself is `run`). */
export const SNAPSHOT_ITEM_JOB_NAME = 'snapshot-item';

/**
 * The data of a workload's snapshot job: what the run resolved at fan-out (no secret: ids,
 * names, the retention SLA Domain), then what the job itself learnt as it went, so that a later
 * step (a poll, a retry on another worker) starts where the last one ended.
 */
export const snapshotItemDataSchema = z.strictObject({
  runId: z.string().min(1),
  definitionId: z.string().min(1),
  workloadId: z.string().min(1),
  workloadName: z.string(),
  workloadType: z.string().min(1),
  /** The retention SLA Domain; null when the definition says keepForever. */
  slaDomainId: z.string().min(1).nullable(),
  /** How long to wait for the platform job, from its trigger, before recording it timed out. */
  maxWaitMs: z.number().int().positive(),

  /** The platform's job id, once the trigger's answer is known (or reconciled). */
  platformJobId: z.string().min(1).optional(),
  /** The job-status link from the trigger's answer. */
  statusUrl: z.url().optional(),
  /** When the trigger was answered (or, for a reconciled one, when it was found), epoch ms. */
  triggeredAtMs: z.number().int().positive().optional(),
  /** Status reads so far, and the last status seen. */
  polls: z.number().int().min(0).optional(),
  lastStatus: z.string().optional(),
  /** Transient failures to read the status in a row. */
  readFailures: z.number().int().min(0).optional(),
});

export type SnapshotItemData = z.output<typeof snapshotItemDataSchema>;
