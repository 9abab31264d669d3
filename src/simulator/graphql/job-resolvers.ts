import { clusterAndActivityResolvers } from './cluster-and-activity-resolvers.js';
import { slaResolvers } from './sla-resolvers.js';
import { workloadResolvers } from './workload-resolvers.js';

/** The operations of paw's jobs (docs/platform-model.md, "GraphQL: the operations of paw's jobs"). */
export const jobResolvers = {
  ...workloadResolvers,
  ...slaResolvers,
  ...clusterAndActivityResolvers,
};
