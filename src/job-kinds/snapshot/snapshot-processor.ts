import { UnrecoverableError } from 'bullmq';
import { RUN_JOB_NAME } from '../../queue/run-job.js';
import type { KindProcessor } from '../../queue/workers/kind-processor.js';
import type { SnapshotDependencies } from './snapshot-dependencies.js';
import { SNAPSHOT_LANE_JOB_NAME } from './lanes/snapshot-lane-job.js';
import { SnapshotLaneJob } from './lanes/snapshot-lane.js';
import { SnapshotRunJob } from './snapshot-run.js';

/**
 * The processor of the `snapshot` queue: the scheduler's `run` jobs (resolve targets, record
 * items, fan out into lanes; snapshot-run.ts) and the `snapshot-lane` jobs they add, each
 * working through its share of the workloads (intent, trigger, poll; snapshot-lane.ts).
 */
export function createSnapshotProcessor(dependencies: SnapshotDependencies): KindProcessor {
  const runs = new SnapshotRunJob(dependencies);
  const lanes = new SnapshotLaneJob(dependencies);
  return {
    kind: 'snapshot',
    process: (job, token, signal) => {
      switch (job.name) {
        case RUN_JOB_NAME:
          return runs.process(job, token, signal);
        case SNAPSHOT_LANE_JOB_NAME:
          return lanes.process(job, token, signal);
        default:
          return Promise.reject(
            new UnrecoverableError(`the snapshot queue has no job named "${job.name}"`),
          );
      }
    },
    // The run job's fan-out is ended. A lane given up on is not handled yet (docs/worker.md):
    // each of its writes starts its count of stalls again, so only a lane that crashes its
    // workers over and over before any write gets here.
    givenUp: (job, reason) =>
      job.name === RUN_JOB_NAME ? runs.givenUp(job, reason) : Promise.resolve(),
  };
}
