import type { SlaWindowDefinition } from '../../definitions/sla-window-definition.js';
import { withAllClusters } from '../../platform/api/sla-domain-clusters.js';
import { NotFoundError } from '../../platform/http/platform-errors.js';
import type { PlatformClient } from '../../platform/platform-client.js';
import type { PauseInfo, SlaDomain } from '../../platform/records/sla-domain.js';

/** One SLA Domain on one cluster: the unit a window pauses, holds and resumes. */
export interface WindowTarget {
  readonly slaDomainId: string;
  readonly slaDomainName: string;
  readonly clusterId: string;
  readonly clusterName: string;
}

/** An SLA Domain a window names, with the clusters it is paused on. */
export interface WindowDomain {
  readonly id: string;
  readonly name: string;
  readonly targets: readonly WindowTarget[];
}

/** Something the definition names that cannot be paused, and why (recorded as an item). */
export interface TargetProblem {
  /** `id:<id>` or `name:<name>` when the SLA Domain was not found, else its id. */
  readonly key: string;
  readonly slaDomainId?: string;
  readonly slaDomainName: string;
  readonly clusterId?: string;
  readonly status: 'failed' | 'skipped';
  readonly errorCode?: string;
  readonly reason: string;
}

export interface ResolvedWindow {
  readonly domains: readonly WindowDomain[];
  readonly problems: readonly TargetProblem[];
}

/**
 * The SLA Domains and clusters a window pauses: its `ids` and `names` (exact names) resolved at
 * the fire, each on `clusterIds` if given (those of them the SLA Domain is on) or on all of its
 * clusters. An id or name that matches nothing is a failed item; a listed cluster an SLA Domain
 * is not on is a skipped one.
 */
export async function resolveWindowTargets(
  platform: PlatformClient,
  slaDomains: SlaWindowDefinition['slaDomains'],
  signal?: AbortSignal,
): Promise<ResolvedWindow> {
  const found = new Map<string, SlaDomain>();
  const problems: TargetProblem[] = [];

  for (const id of slaDomains.ids ?? []) {
    try {
      const domain = await platform.api.slaDomains.get(id, signal);
      found.set(domain.id, domain);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      problems.push({
        key: `id:${id}`,
        slaDomainName: id,
        status: 'failed',
        errorCode: 'NOT_FOUND',
        reason: `no SLA Domain has the id ${id}`,
      });
    }
  }

  for (const name of slaDomains.names ?? []) {
    const matches: SlaDomain[] = [];
    for await (const domain of platform.api.slaDomains.list(
      { filterField: 'NAME_EXACT_MATCH', filterText: name },
      signal,
    )) {
      if (domain.name === name)
        matches.push(await withAllClusters(platform.api.slaDomains, domain, signal));
    }
    if (matches.length === 0) {
      problems.push({
        key: `name:${name}`,
        slaDomainName: name,
        status: 'failed',
        errorCode: 'NOT_FOUND',
        reason: `no SLA Domain is named ${JSON.stringify(name)} (names are matched exactly)`,
      });
    }
    for (const domain of matches) found.set(domain.id, domain);
  }

  const domains: WindowDomain[] = [];
  for (const domain of found.values()) {
    const clusters = domain.clusters ?? [];
    const wanted = slaDomains.clusterIds;
    const chosen =
      wanted === undefined ? clusters : clusters.filter((c) => wanted.includes(c.clusterId));
    for (const clusterId of wanted ?? []) {
      if (clusters.some((cluster) => cluster.clusterId === clusterId)) continue;
      problems.push({
        key: domain.id,
        slaDomainId: domain.id,
        slaDomainName: domain.name,
        clusterId,
        status: 'skipped',
        reason: `SLA Domain ${domain.name} is not on cluster ${clusterId}: nothing to pause there`,
      });
    }
    domains.push({
      id: domain.id,
      name: domain.name,
      targets: chosen.map((cluster) => ({
        slaDomainId: domain.id,
        slaDomainName: domain.name,
        clusterId: cluster.clusterId,
        clusterName: cluster.clusterName ?? cluster.clusterId,
      })),
    });
  }
  return { domains, problems };
}

/** The pause status the platform reports for a target's cluster (`UNKNOWN` if it is not listed). */
export function pauseStatusOf(domain: SlaDomain, clusterId: string): string {
  const cluster = (domain.clusters ?? []).find((entry) => entry.clusterId === clusterId);
  return cluster?.pauseStatus ?? 'UNKNOWN';
}

/** Who paused a target's cluster and why, where the platform says. */
export function pauseInfoOf(domain: SlaDomain, clusterId: string): PauseInfo | undefined {
  return (domain.clusters ?? []).find((entry) => entry.clusterId === clusterId)?.pause;
}
