import type { SlaWindowDefinition } from '../../definitions/sla-window-definition.js';
import type { PlatformClient } from '../../platform/platform-client.js';
import type { PauseInfo } from '../../platform/records/sla-domain.js';
import {
  pauseInfoOf,
  pauseStatusOf,
  resolveWindowTargets,
  type TargetProblem,
} from './window-target.js';

/** What a maintenance window would pause now, resolved against the platform, touching nothing. */
export interface WindowPreview {
  readonly kind: 'sla-window';
  readonly duration: string;
  readonly targets: readonly {
    readonly slaDomainId: string;
    readonly slaDomainName: string;
    readonly clusterId: string;
    readonly clusterName: string;
    /** `pause`; or `leave`: already paused (by someone else), left as it is and not resumed. */
    readonly action: 'pause' | 'leave';
    readonly pauseStatus: string;
    /** Who paused it and why, where the platform says (a cluster left alone). */
    readonly pause?: PauseInfo | undefined;
  }[];
  readonly problems: readonly TargetProblem[];
}

/**
 * Resolves the window's SLA Domains and clusters as a run would (the same function) and reads
 * each one's pause state: a cluster already paused is one the window leaves alone (it never
 * resumes what it did not pause). Reads only.
 */
export async function previewWindow(
  definition: SlaWindowDefinition,
  platform: PlatformClient,
  signal?: AbortSignal,
): Promise<WindowPreview> {
  const resolved = await resolveWindowTargets(platform, definition.slaDomains, signal);
  const targets: WindowPreview['targets'][number][] = [];
  for (const domain of resolved.domains) {
    const current = await platform.api.slaDomains.get(domain.id, signal);
    for (const target of domain.targets) {
      const pauseStatus = pauseStatusOf(current, target.clusterId);
      targets.push({
        ...target,
        action: pauseStatus === 'PAUSED' ? 'leave' : 'pause',
        pauseStatus,
        pause: pauseInfoOf(current, target.clusterId),
      });
    }
  }
  return {
    kind: 'sla-window',
    duration: definition.schedule.duration,
    targets,
    problems: resolved.problems,
  };
}
