import type { SlaDomain } from '../records/sla-domain.js';
import type { SlaDomainOperations } from './platform-api.js';

/**
 * A listed SLA Domain with every cluster's pause state: as listed where the listing had them
 * (REST), else read with `get` (a GraphQL listing names only the paused clusters).
 */
export async function withAllClusters(
  slaDomains: SlaDomainOperations,
  domain: SlaDomain,
  signal?: AbortSignal,
): Promise<SlaDomain> {
  return domain.clusters == null ? slaDomains.get(domain.id, signal) : domain;
}
