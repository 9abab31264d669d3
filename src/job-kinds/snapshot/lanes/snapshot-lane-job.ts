import { z } from 'zod';
import { itemJobId } from '../../../queue/run-id.js';

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

/** What decides how many lanes a run has. */
export interface LaneSizing {
  /** About how many workloads a lane holds (`worker.snapshotLaneSize`). */
  readonly laneSize: number;
  /** The platform's request rate (`platform.requestsPerSecond`), which the lanes share. */
  readonly requestsPerSecond: number;
  /** How much of that rate one lane carries (`worker.snapshotLaneRequestsPerSecond`). */
  readonly laneRequestsPerSecond: number;
}

/**
 * How many lanes work through a run of `items` workloads to trigger: one per `laneSize`
 * workloads and one per `laneRequestsPerSecond` of the platform's rate, whichever is fewer, at
 * least one and at most {@link MAX_LANES}. One lane does the most work per wake-up and per Redis
 * round trip; more lanes spread a run over the worker processes, which only pays when the rate
 * gives each of them enough to do (BENCHMARKS.md: at 50 requests/s, one lane of 10,000 cost half
 * the CPU per snapshot of five).
 */
export function lanesFor(items: number, sizing: LaneSizing): number {
  const bySize = Math.ceil(items / sizing.laneSize);
  const byRate = Math.ceil(sizing.requestsPerSecond / sizing.laneRequestsPerSecond);
  return Math.min(MAX_LANES, Math.max(1, Math.min(bySize, byRate)));
}
