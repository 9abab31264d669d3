/**
 * The task-based REST interface's operations and their default routes (docs/platform-model.md).
 * The interface is beta and its paths are unpublished, so this table is the one place that
 * names them; `platform.routes` in the settings overrides any entry per operationId.
 *
 * This file holds data only and imports nothing: the settings schema reads it to validate
 * overrides, and nothing here may pull the client into the configuration layer.
 */
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface RouteDefinition {
  readonly method: HttpMethod;
  /** Relative to `{base_url}` + the REST base path; `{name}` marks a path parameter. */
  readonly path: string;
}

export const DEFAULT_ROUTES = {
  listWorkloads: { method: 'GET', path: '/workloads' },
  getWorkload: { method: 'GET', path: '/workloads/{workloadId}' },
  listWorkloadSnapshots: { method: 'GET', path: '/workloads/{workloadId}/snapshots' },
  takeSnapshot: { method: 'POST', path: '/workloads/{workloadId}/snapshots' },
  getSnapshotJobStatus: { method: 'GET', path: '/workloads/{workloadId}/snapshot-jobs/{jobId}' },
  listSlaDomains: { method: 'GET', path: '/sla-domains' },
  createSlaDomain: { method: 'POST', path: '/sla-domains' },
  getSlaDomain: { method: 'GET', path: '/sla-domains/{slaDomainId}' },
  updateSlaDomain: { method: 'PATCH', path: '/sla-domains/{slaDomainId}' },
  deleteSlaDomain: { method: 'DELETE', path: '/sla-domains/{slaDomainId}' },
  assignSlaDomain: { method: 'POST', path: '/sla-domains/{slaDomainId}/assign' },
  removeProtection: { method: 'POST', path: '/sla-domains/{slaDomainId}/unassign' },
  pauseSlaDomain: { method: 'POST', path: '/sla-domains/{slaDomainId}/pause' },
  resumeSlaDomain: { method: 'POST', path: '/sla-domains/{slaDomainId}/resume' },
  listClusters: { method: 'GET', path: '/clusters' },
  listEvents: { method: 'GET', path: '/events' },
} as const satisfies Record<string, RouteDefinition>;

export type RestOperationId = keyof typeof DEFAULT_ROUTES;

export const REST_OPERATION_IDS = Object.keys(DEFAULT_ROUTES) as [
  RestOperationId,
  ...RestOperationId[],
];

/** The `{name}` placeholders of a route path, in order. */
export function pathParameters(path: string): string[] {
  return [...path.matchAll(/\{([A-Za-z][A-Za-z0-9_]*)\}/g)].map((match) => match[1] ?? '');
}
