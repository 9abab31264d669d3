import { UnsupportedWorkloadTypeError } from '../http/platform-errors.js';
import type { Workload } from '../records/workload.js';
import type { SnapshotDecision, Vocabulary } from '../vocabulary/vocabulary.js';

/**
 * What a trigger does with `workload`, for either interface: a kind paw knows cannot be
 * snapshotted on demand is refused here, before anything is sent (the error says it had no
 * effect); any other type goes to the platform, which decides.
 */
export function snapshotToTrigger(
  vocabulary: Vocabulary,
  workload: Workload,
): Extract<SnapshotDecision, { action: 'trigger' }> {
  const decision = vocabulary.snapshotDecision(workload.type);
  if (decision.action === 'skip') {
    throw new UnsupportedWorkloadTypeError({
      operation: 'takeSnapshot',
      code: 'UNSUPPORTED_WORKLOAD_TYPE',
      message: `workload ${workload.id}: ${decision.reason}`,
      mayHaveTakenEffect: false,
    });
  }
  return decision;
}
