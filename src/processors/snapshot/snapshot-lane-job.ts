import { z } from 'zod';
import { itemJobId } from '../../queue/run-id.js';

/** The BullMQ job name of a lane of a snapshot run (the run itself is `run`). */
export const SNAPSHOT_LANE_JOB_NAME = 'snapshot-lane';

/**
 * The data of a lane's job: which lane of which run it is, and the run-wide facts the run
 * resolved at fan-out (no secret). Which items the lane holds, and everything each item learns,
 * live in the outcome store (the lane's sorted set and the items' records), never here. Extra
 * fields (written by an older paw) are ignored.
 */
export const snapshotLaneDataSchema = z.looseObject({
  runId: z.string().min(1),
  definitionId: z.string().min(1),
  lane: z.number().int().min(0),
  /** How many lanes the run has: the lanes share the platform's rate. */
  lanes: z.number().int().positive(),
  /** The retention SLA Domain; null when the definition says keepForever. */
  slaDomainId: z.string().min(1).nullable(),
  /** How long to wait for a platform job, from its trigger, before recording it timed out. */
  maxWaitMs: z.number().int().positive(),
});

export type SnapshotLaneData = z.output<typeof snapshotLaneDataSchema>;

/** The job id of a run's lane: one job per lane, so a repeated fan-out adds none twice. */
export function laneJobId(runId: string, lane: number): string {
  return itemJobId(runId, `lane-${lane}`);
}

/** The most lanes a run is split into. */
const MAX_LANES = 16;

/**
 * How many lanes work through a run of `items` workloads to trigger: one per `laneSize`
 * (`worker.snapshotLaneSize`), at most {@link MAX_LANES}. A run of up to `laneSize` is one lane:
 * one job works through it, with the most work per Redis round trip; a bigger run has more, so
 * that its work spreads over the worker processes.
 */
export function lanesFor(items: number, laneSize: number): number {
  return Math.min(MAX_LANES, Math.max(1, Math.ceil(items / laneSize)));
}
