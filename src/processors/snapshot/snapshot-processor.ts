import { UnrecoverableError } from 'bullmq';
import { RUN_JOB_NAME } from '../../queue/run-job.js';
import type { KindProcessor } from '../../processing/kind-processor.js';
import type { SnapshotDependencies } from './snapshot-dependencies.js';
import { SNAPSHOT_ITEM_JOB_NAME } from './snapshot-item-job.js';
import { SnapshotItemJob } from './snapshot-item.js';
import { SnapshotRunJob } from './snapshot-run.js';

/**
 * The processor of the `snapshot` queue: the scheduler's `run` jobs (resolve targets, record
 * items, fan out; snapshot-run.ts) and the `snapshot-item` jobs they add, one per workload
 * (intent, trigger, poll; snapshot-item.ts).
 */
export function createSnapshotProcessor(dependencies: SnapshotDependencies): KindProcessor {
  const runs = new SnapshotRunJob(dependencies);
  const items = new SnapshotItemJob(dependencies);
  return {
    kind: 'snapshot',
    process: (job, token, signal) => {
      switch (job.name) {
        case RUN_JOB_NAME:
          return runs.process(job, token, signal);
        case SNAPSHOT_ITEM_JOB_NAME:
          return items.process(job, token, signal);
        default:
          return Promise.reject(
            new UnrecoverableError(`the snapshot queue has no job named "${job.name}"`),
          );
      }
    },
  };
}
