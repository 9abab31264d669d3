import { activityResolvers } from './activity-resolvers.js';
import { clusterResolvers } from './cluster-resolvers.js';
import { hierarchyResolvers } from './hierarchy-resolvers.js';
import { slaResolvers } from './sla-resolvers.js';
import { workloadResolvers } from './workload-resolvers.js';

/**
 * The operations of paw's jobs (docs/platform-model.md, "GraphQL: the operations of paw's jobs"),
 * and the roots users list and protect their VMs and databases with (docs/simulator.md).
 */
export const jobResolvers = {
  ...workloadResolvers,
  ...slaResolvers,
  ...clusterResolvers,
  ...activityResolvers,
  ...hierarchyResolvers,
};
