import type { Settings } from '../../config/settings-schema.js';
import { appendPath } from '../http/append-path.js';
import { isAbsoluteLink, linkUrl, resolvePlatformLink } from '../http/origin-guard.js';
import { UsageError } from '../../shared/usage-error.js';
import {
  DEFAULT_ROUTES,
  pathParameters,
  type HttpMethod,
  type RestOperationId,
} from '../defaults/default-routes.js';

export type QueryValue = string | number | boolean | undefined;

export interface ResolvedRoute {
  readonly operationId: RestOperationId;
  readonly method: HttpMethod;
  /** The path template as logged: `/api/rest/workloads/{workloadId}`. */
  readonly template: string;
  readonly url: URL;
}

/**
 * The REST routes in effect: the defaults of `default-routes.ts` with the user's per-operation
 * overrides (`platform.routes`) on top, under `{base_url}` + `platform.restBasePath`.
 */
export class RouteTable {
  private readonly routes: Record<RestOperationId, { method: HttpMethod; path: string }>;

  constructor(
    private readonly baseUrl: URL,
    private readonly restBasePath: string,
    overrides: Settings['platform']['routes'] = {},
  ) {
    const routes = {} as Record<RestOperationId, { method: HttpMethod; path: string }>;
    for (const [operationId, route] of Object.entries(DEFAULT_ROUTES)) {
      const override = overrides[operationId as RestOperationId];
      routes[operationId as RestOperationId] = {
        method: override?.method ?? route.method,
        path: override?.path ?? route.path,
      };
    }
    this.routes = routes;
  }

  method(operationId: RestOperationId): HttpMethod {
    return this.routes[operationId].method;
  }

  /** The path in effect, relative to the REST base path (`/workloads/{workloadId}`). */
  path(operationId: RestOperationId): string {
    return this.routes[operationId].path;
  }

  /**
   * The URL of an operation. Path parameters are percent-encoded (job ids hold `:`); query
   * parameters that are undefined are left out.
   */
  resolve(
    operationId: RestOperationId,
    parameters: Readonly<Record<string, string>> = {},
    query: Readonly<Record<string, QueryValue>> = {},
  ): ResolvedRoute {
    const route = this.routes[operationId];
    for (const name of pathParameters(route.path)) {
      if (parameters[name] === undefined || parameters[name] === '') {
        throw new UsageError(
          `platform.routes.${operationId}: the route ${route.path} uses {${name}}, which paw ` +
            'does not know for this call; use the placeholders paw fills for it (docs/configuration.md)',
        );
      }
    }
    const path = route.path.replace(/\{([A-Za-z][A-Za-z0-9_]*)\}/g, (_, name: string) =>
      encodeURIComponent(parameters[name] ?? ''),
    );
    const url = appendPath(this.baseUrl, `${this.restBasePath}${path}`);
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return {
      operationId,
      method: route.method,
      template: `${this.restBasePath}${route.path}`,
      url,
    };
  }

  /**
   * Resolves a link the platform handed out. An absolute link stays as it is (the origin guard
   * judges it where it is used). A path under `{base_url}` (it starts with the REST base path,
   * `/api/` or `{base_url}`'s own path) is resolved against `{base_url}`; any other path, and a
   * relative one, against the REST base: a beta interface may answer `/workloads/...` or
   * `snapshot-jobs/...` meaning its own routes.
   */
  resolveLink(link: string, operation: string): URL {
    if (isAbsoluteLink(link)) return resolvePlatformLink(link, this.baseUrl, operation);
    return linkUrl(operation, () => {
      const prefix = this.baseUrl.pathname.replace(/\/+$/, '');
      if (prefix !== '' && link.startsWith(`${prefix}/`)) return new URL(link, this.baseUrl.origin);
      if (link.startsWith(`${this.restBasePath}/`) || link.startsWith('/api/')) {
        return appendPath(this.baseUrl, link);
      }
      return appendPath(appendPath(this.baseUrl, this.restBasePath), link);
    });
  }
}
