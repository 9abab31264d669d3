import { z } from 'zod';

/** The BullMQ job name of one workload's snapshot in a run (the run itself is `run`). */
export const SNAPSHOT_ITEM_JOB_NAME = 'snapshot-item';

/**
 * The data of a workload's snapshot job: which item it is, and the run-wide facts the run
 * resolved at fan-out (no secret). Everything the job learns as it goes is recorded in the
 * item's outcome record (item-details.ts), the one home of its state. Extra fields (written by
 * an older paw) are ignored.
 */
export const snapshotItemDataSchema = z.looseObject({
  runId: z.string().min(1),
  definitionId: z.string().min(1),
  workloadId: z.string().min(1),
  /** The retention SLA Domain; null when the definition says keepForever. */
  slaDomainId: z.string().min(1).nullable(),
  /** How long to wait for the platform job, from its trigger, before recording it timed out. */
  maxWaitMs: z.number().int().positive(),
});

export type SnapshotItemData = z.output<typeof snapshotItemDataSchema>;
