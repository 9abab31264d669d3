import type { SnapshotDefinition } from '../../definitions/snapshot-definition.js';
import type { PlatformClient } from '../../platform/platform-client.js';
import { resolveRetention } from './retention.js';
import { RunConfigurationError } from './run-configuration-error.js';
import { resolveTargets, targetDecision } from './targets.js';

/** What a snapshot run would do now, resolved against the platform, touching nothing. */
export interface SnapshotPreview {
  readonly kind: 'snapshot';
  /** Where the snapshots would be kept: an SLA Domain, forever, or why the run would fail. */
  readonly retention: string;
  /** Set when the run would fail as a whole (its retention SLA Domain cannot be found). */
  readonly runProblem?: string;
  readonly snapshot: readonly PreviewWorkload[];
  readonly skip: readonly (PreviewWorkload & { readonly reason: string })[];
  readonly unknownIds: readonly { readonly id: string; readonly message: string }[];
}

interface PreviewWorkload {
  readonly id: string;
  readonly name: string;
  readonly type: string;
  readonly clusterId: string | undefined;
}

/**
 * Resolves the targets and the retention as a run would at its fire (the same functions), and
 * says, for each workload, whether it would be triggered or skipped and why. Reads only.
 */
export async function previewSnapshot(
  definition: SnapshotDefinition,
  platform: PlatformClient,
  signal?: AbortSignal,
): Promise<SnapshotPreview> {
  let retention: string;
  let runProblem: string | undefined;
  try {
    const resolved = await resolveRetention(definition, platform, signal);
    retention = resolved.keepForever
      ? 'kept forever (keepForever: true): no SLA Domain ever expires them'
      : `${resolved.slaDomainName} (${resolved.slaDomainId})`;
  } catch (error) {
    if (!(error instanceof RunConfigurationError)) throw error;
    retention = 'cannot be resolved';
    runProblem = `${error.code}: ${error.message}`;
  }
  const targets = await resolveTargets(definition.targets, platform, signal);
  const snapshot: PreviewWorkload[] = [];
  const skip: (PreviewWorkload & { reason: string })[] = [];
  for (const workload of targets.workloads) {
    const entry = {
      id: workload.id,
      name: workload.name,
      type: workload.type,
      clusterId: workload.clusterId,
    };
    const decision = targetDecision(workload, targets, platform.api.vocabulary);
    if (decision.action === 'skip') skip.push({ ...entry, reason: decision.reason });
    else snapshot.push(entry);
  }
  return {
    kind: 'snapshot',
    retention,
    ...(runProblem === undefined ? {} : { runProblem }),
    snapshot,
    skip,
    unknownIds: targets.unknownIds,
  };
}
