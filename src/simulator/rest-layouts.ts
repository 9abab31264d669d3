import { z } from 'zod';
import type { RestOperationId } from './operation-ids.js';

/**
 * Where the task-based REST interface's routes live (docs/platform-model.md, "The platforms
 * the simulator can be"). `default` is this project's model; `v2` moves and renames every route,
 * as a new beta release of the platform might: the simulator registers its routes from this one
 * table, and its OpenAPI document follows.
 */
export const REST_LAYOUTS = ['default', 'v2'] as const;
export type RestLayoutName = (typeof REST_LAYOUTS)[number];

/** A route's path parameter, by the name the handlers know it. */
type RouteParameter = 'workloadId' | 'jobId' | 'slaDomainId';

interface LayoutRoute {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Relative to `/api/rest`; `{name}` marks a path parameter. */
  readonly path: string;
  /** The operationId the OpenAPI document names. */
  readonly operationId: string;
}

const DEFAULT_LAYOUT: Record<RestOperationId, LayoutRoute> = {
  listWorkloads: { method: 'GET', path: '/workloads', operationId: 'listWorkloads' },
  getWorkload: { method: 'GET', path: '/workloads/{workloadId}', operationId: 'getWorkload' },
  listWorkloadSnapshots: {
    method: 'GET',
    path: '/workloads/{workloadId}/snapshots',
    operationId: 'listWorkloadSnapshots',
  },
  takeSnapshot: {
    method: 'POST',
    path: '/workloads/{workloadId}/snapshots',
    operationId: 'takeSnapshot',
  },
  getSnapshotJobStatus: {
    method: 'GET',
    path: '/workloads/{workloadId}/snapshot-jobs/{jobId}',
    operationId: 'getSnapshotJobStatus',
  },
  listSlaDomains: { method: 'GET', path: '/sla-domains', operationId: 'listSlaDomains' },
  createSlaDomain: { method: 'POST', path: '/sla-domains', operationId: 'createSlaDomain' },
  getSlaDomain: { method: 'GET', path: '/sla-domains/{slaDomainId}', operationId: 'getSlaDomain' },
  updateSlaDomain: {
    method: 'PATCH',
    path: '/sla-domains/{slaDomainId}',
    operationId: 'updateSlaDomain',
  },
  deleteSlaDomain: {
    method: 'DELETE',
    path: '/sla-domains/{slaDomainId}',
    operationId: 'deleteSlaDomain',
  },
  assignSlaDomain: {
    method: 'POST',
    path: '/sla-domains/{slaDomainId}/assign',
    operationId: 'assignSlaDomain',
  },
  removeProtection: {
    method: 'POST',
    path: '/sla-domains/{slaDomainId}/unassign',
    operationId: 'removeProtection',
  },
  pauseSlaDomain: {
    method: 'POST',
    path: '/sla-domains/{slaDomainId}/pause',
    operationId: 'pauseSlaDomain',
  },
  resumeSlaDomain: {
    method: 'POST',
    path: '/sla-domains/{slaDomainId}/resume',
    operationId: 'resumeSlaDomain',
  },
  listClusters: { method: 'GET', path: '/clusters', operationId: 'listClusters' },
  listEvents: { method: 'GET', path: '/events', operationId: 'listEvents' },
};

/** `{objectId}` and `{slaId}` are the workload's and the SLA Domain's ids under other names. */
const V2_LAYOUT: Record<RestOperationId, LayoutRoute> = {
  listWorkloads: { method: 'GET', path: '/objects', operationId: 'queryObjects' },
  getWorkload: { method: 'GET', path: '/objects/{objectId}', operationId: 'getObject' },
  listWorkloadSnapshots: {
    method: 'GET',
    path: '/objects/{objectId}/snapshots',
    operationId: 'queryObjectSnapshots',
  },
  takeSnapshot: {
    method: 'POST',
    path: '/objects/{objectId}/on-demand-snapshots',
    operationId: 'createOnDemandSnapshot',
  },
  getSnapshotJobStatus: { method: 'GET', path: '/jobs/{jobId}', operationId: 'getJob' },
  listSlaDomains: { method: 'GET', path: '/slas', operationId: 'querySlas' },
  createSlaDomain: { method: 'POST', path: '/slas', operationId: 'createSla' },
  getSlaDomain: { method: 'GET', path: '/slas/{slaId}', operationId: 'getSla' },
  updateSlaDomain: { method: 'PATCH', path: '/slas/{slaId}', operationId: 'updateSla' },
  deleteSlaDomain: { method: 'DELETE', path: '/slas/{slaId}', operationId: 'deleteSla' },
  assignSlaDomain: { method: 'POST', path: '/slas/{slaId}/protect', operationId: 'protectObjects' },
  removeProtection: {
    method: 'POST',
    path: '/slas/{slaId}/unprotect',
    operationId: 'unprotectObjects',
  },
  pauseSlaDomain: { method: 'POST', path: '/slas/{slaId}/pause', operationId: 'pauseSla' },
  resumeSlaDomain: { method: 'POST', path: '/slas/{slaId}/resume', operationId: 'resumeSla' },
  listClusters: { method: 'GET', path: '/clusters', operationId: 'queryClusters' },
  listEvents: { method: 'GET', path: '/activities', operationId: 'queryActivities' },
};

const LAYOUTS: Record<RestLayoutName, Record<RestOperationId, LayoutRoute>> = {
  default: DEFAULT_LAYOUT,
  v2: V2_LAYOUT,
};

/** The names a layout may give each route parameter. */
const PARAMETER_NAMES: Record<string, RouteParameter> = {
  workloadId: 'workloadId',
  objectId: 'workloadId',
  jobId: 'jobId',
  slaDomainId: 'slaDomainId',
  slaId: 'slaDomainId',
};

/** One operation's route in a layout, ready for fastify. */
export interface ResolvedLayoutRoute extends LayoutRoute {
  /** Fastify's URL, relative to `/api/rest` (`/objects/:objectId`). */
  readonly url: string;
  /** The params schema, with the layout's own parameter names. */
  readonly params: z.ZodObject | undefined;
  /** A parameter's value by the name the handlers know it. */
  param(params: unknown, name: RouteParameter): string;
  /** The path (under `/api/rest`) of this route for the given parameters. */
  pathFor(values: Partial<Record<RouteParameter, string>>): string;
}

/** The route of `operation` in `layout`. */
export function layoutRoute(
  layout: RestLayoutName,
  operation: RestOperationId,
): ResolvedLayoutRoute {
  const route = LAYOUTS[layout][operation];
  const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? '');
  const nameOf = (parameter: RouteParameter): string | undefined =>
    names.find((name) => PARAMETER_NAMES[name] === parameter);
  return {
    ...route,
    url: route.path.replace(/\{(\w+)\}/g, ':$1'),
    params:
      names.length === 0
        ? undefined
        : z.object(Object.fromEntries(names.map((name) => [name, z.string().min(1)]))),
    param: (params, parameter) => {
      const name = nameOf(parameter);
      const value =
        name === undefined ? undefined : (params as Record<string, unknown> | undefined)?.[name];
      return typeof value === 'string' ? value : '';
    },
    pathFor: (values) =>
      route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
        const parameter = PARAMETER_NAMES[name];
        return encodeURIComponent((parameter === undefined ? '' : values[parameter]) ?? '');
      }),
  };
}
