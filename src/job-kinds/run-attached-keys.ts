import type { OutcomeKeys } from '../outcomes/outcome-keys.js';
import type { RunAttachedKeys } from '../outcomes/outcome-retention.js';
import { LaneKeys } from './snapshot/lanes/lane-keys.js';

/**
 * The keys the job kinds keep for a run beside its outcome records, for the retention trimmer to
 * delete with the run: a snapshot run's lanes.
 */
export function runAttachedKeys(keys: OutcomeKeys): RunAttachedKeys {
  const lanes = new LaneKeys(keys);
  return (runId, run) => (run['kind'] === 'snapshot' ? lanes.keysOfRun(runId, run) : []);
}
