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

/** A value paw can put into a route's path. */
export type RoutePlaceholder = 'workloadId' | 'jobId' | 'slaDomainId' | 'clusterId';

/**
 * The placeholders paw can fill for each operation: a route override may use any of them, and
 * must use the `required` ones (without them every call would go to the same URL). The platform
 * plans a top-level job lookup by job id, so a job-status route may drop the workload id.
 */
export const ROUTE_FILLS: Readonly<
  Record<
    RestOperationId,
    {
      readonly required: readonly RoutePlaceholder[];
      readonly optional: readonly RoutePlaceholder[];
    }
  >
> = {
  listWorkloads: { required: [], optional: [] },
  getWorkload: { required: ['workloadId'], optional: ['clusterId'] },
  listWorkloadSnapshots: { required: ['workloadId'], optional: ['clusterId'] },
  takeSnapshot: { required: ['workloadId'], optional: ['clusterId'] },
  getSnapshotJobStatus: { required: ['jobId'], optional: ['workloadId', 'clusterId'] },
  listSlaDomains: { required: [], optional: [] },
  createSlaDomain: { required: [], optional: [] },
  getSlaDomain: { required: ['slaDomainId'], optional: [] },
  updateSlaDomain: { required: ['slaDomainId'], optional: [] },
  deleteSlaDomain: { required: ['slaDomainId'], optional: [] },
  assignSlaDomain: { required: ['slaDomainId'], optional: [] },
  removeProtection: { required: ['slaDomainId'], optional: [] },
  pauseSlaDomain: { required: ['slaDomainId'], optional: [] },
  resumeSlaDomain: { required: ['slaDomainId'], optional: [] },
  listClusters: { required: [], optional: [] },
  listEvents: { required: [], optional: [] },
};

/**
 * What is wrong with a route path's placeholders for an operation (unknown to paw, or a
 * required one missing), or undefined when paw can fill it.
 */
export function routePlaceholderProblem(
  operationId: RestOperationId,
  path: string,
): string | undefined {
  const { required, optional } = ROUTE_FILLS[operationId];
  const fillable: readonly string[] = [...required, ...optional];
  const given = pathParameters(path);
  const unknown = given.filter((name) => !fillable.includes(name));
  const missing = required.filter((name) => !given.includes(name));
  if (unknown.length === 0 && missing.length === 0) return undefined;
  const list = (names: readonly string[]): string =>
    names.map((name) => `{${name}}`).join(', ') || '(none)';
  return (
    [
      unknown.length > 0 ? `paw cannot fill ${list(unknown)} for ${operationId}` : undefined,
      missing.length > 0 ? `it must use ${list(missing)}` : undefined,
    ]
      .filter((part) => part !== undefined)
      .join('; ') + `; placeholders paw fills here: ${list(fillable)}`
  );
}
