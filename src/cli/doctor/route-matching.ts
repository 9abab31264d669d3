import {
  DEFAULT_ROUTES,
  REST_OPERATION_IDS,
  ROUTE_FILLS,
  pathParameters,
  type HttpMethod,
  type RestOperationId,
  type RoutePlaceholder,
} from '../../platform/defaults/default-routes.js';
import type { ReferenceOperation } from '../../platform/rest/rest-reference.js';

/**
 * How the doctor recognises paw's operations in a REST reference whose operationIds and paths
 * are not paw's: the method, how many path parameters, and words (in the operationId, summary,
 * tags and path). Every word of `all` must appear, one of each `any` group, none of `none`.
 */
interface MatchRule {
  readonly methods: readonly HttpMethod[];
  readonly parameters: number;
  readonly all?: readonly RegExp[];
  readonly any?: readonly (readonly RegExp[])[];
  readonly none?: readonly RegExp[];
}

const WORKLOAD = [/workload/, /object/, /snappable/, /protected/];
const SNAPSHOT = [/snapshot/, /backup/];
const SLA = [/sla/];
const COLLECTION_ONLY = [/snapshot/, /job/];

const RULES: Readonly<Record<RestOperationId, MatchRule>> = {
  listWorkloads: { methods: ['GET'], parameters: 0, any: [WORKLOAD], none: COLLECTION_ONLY },
  getWorkload: {
    methods: ['GET'],
    parameters: 1,
    any: [WORKLOAD],
    none: [/snapshot/, /job/, /sla/],
  },
  listWorkloadSnapshots: {
    methods: ['GET'],
    parameters: 1,
    any: [WORKLOAD, SNAPSHOT],
    none: [/job/],
  },
  takeSnapshot: { methods: ['POST'], parameters: 1, any: [SNAPSHOT], none: [/sla/, /job/] },
  getSnapshotJobStatus: {
    methods: ['GET'],
    parameters: 1,
    any: [[/job/, /task/, /request/, /status/]],
  },
  listSlaDomains: { methods: ['GET'], parameters: 0, any: [SLA] },
  createSlaDomain: { methods: ['POST'], parameters: 0, any: [SLA] },
  getSlaDomain: {
    methods: ['GET'],
    parameters: 1,
    any: [SLA],
    none: [/pause/, /resume/, /status/],
  },
  updateSlaDomain: {
    methods: ['PATCH', 'PUT'],
    parameters: 1,
    any: [SLA],
    none: [/pause/, /resume/],
  },
  deleteSlaDomain: { methods: ['DELETE'], parameters: 1, any: [SLA] },
  assignSlaDomain: {
    methods: ['POST', 'PUT'],
    parameters: 1,
    any: [SLA, [/assign/, /protect/]],
    none: [/unassign/, /unprotect/, /remove/],
  },
  removeProtection: {
    methods: ['POST', 'PUT', 'DELETE'],
    parameters: 1,
    any: [SLA, [/unassign/, /unprotect/, /remove/]],
  },
  pauseSlaDomain: {
    methods: ['POST', 'PUT', 'PATCH'],
    parameters: 1,
    any: [SLA, [/pause/]],
    none: [/resume/],
  },
  resumeSlaDomain: {
    methods: ['POST', 'PUT', 'PATCH'],
    parameters: 1,
    any: [SLA, [/resume/, /unpause/]],
  },
  listClusters: { methods: ['GET'], parameters: 0, any: [[/cluster/]] },
  listEvents: { methods: ['GET'], parameters: 0, any: [[/event/, /activit/]] },
};

/** One of paw's operations as the reference has it. */
export interface RouteMatch {
  readonly operationId: RestOperationId;
  readonly found:
    | { readonly how: 'operationId' | 'words'; readonly method: HttpMethod; readonly path: string }
    | undefined;
  /** Several reference operations fit equally well: none was chosen. */
  readonly ambiguous: readonly string[];
}

/**
 * paw's operations in the platform's REST reference: by operationId first (case and
 * separators ignored), then by the rules above. `path` is relative to the REST base path and
 * uses paw's placeholder names, ready for `platform.routes`.
 */
export function matchRoutes(
  operations: readonly ReferenceOperation[],
  restBasePath: string,
): RouteMatch[] {
  return REST_OPERATION_IDS.map((operationId) => {
    const byId = operations.find(
      (operation) =>
        operation.operationId !== undefined &&
        squash(operation.operationId) === squash(operationId),
    );
    if (byId !== undefined) {
      return {
        operationId,
        found: located(operationId, byId, 'operationId', restBasePath),
        ambiguous: [],
      };
    }
    const rule = RULES[operationId];
    const fitting = operations.filter((operation) => fits(rule, operation));
    const [only, ...others] = fitting;
    if (only !== undefined && others.length === 0) {
      return {
        operationId,
        found: located(operationId, only, 'words', restBasePath),
        ambiguous: [],
      };
    }
    return {
      operationId,
      found: undefined,
      ambiguous: fitting.map((operation) => `${operation.method} ${operation.path}`),
    };
  });
}

/** Whether a matched route is what paw uses by default. */
export function isDefaultRoute(match: RouteMatch): boolean {
  const defaults = DEFAULT_ROUTES[match.operationId];
  return match.found?.method === defaults.method && match.found.path === defaults.path;
}

function fits(rule: MatchRule, operation: ReferenceOperation): boolean {
  if (!rule.methods.includes(operation.method)) return false;
  if (pathParameters(operation.path).length !== rule.parameters) return false;
  const text = [
    operation.operationId ?? '',
    operation.summary ?? '',
    ...operation.tags,
    operation.path,
  ]
    .join(' ')
    .toLowerCase();
  const staticPath = operation.path.replace(/\{[^}]*\}/g, '').toLowerCase();
  if ((rule.all ?? []).some((word) => !word.test(text))) return false;
  if ((rule.any ?? []).some((group) => !group.some((word) => word.test(text)))) return false;
  return !(rule.none ?? []).some(
    (word) => word.test(staticPath) || word.test(operation.operationId?.toLowerCase() ?? ''),
  );
}

/** The reference's route in paw's terms: relative to the REST base, paw's placeholder names. */
function located(
  operationId: RestOperationId,
  operation: ReferenceOperation,
  how: 'operationId' | 'words',
  restBasePath: string,
): RouteMatch['found'] {
  const relative = operation.path.startsWith(`${restBasePath}/`)
    ? operation.path.slice(restBasePath.length)
    : operation.path;
  const names = pathParameters(relative);
  const placeholders = placeholdersFor(operationId, names);
  let index = 0;
  const path = relative.replace(/\{[^}]*\}/g, () => `{${placeholders[index++] ?? 'unknown'}}`);
  return { how, method: operation.method, path };
}

/**
 * Which of paw's placeholders each of the reference's path parameters is: by its name when it
 * says (`jobId`, `clusterUuid`), else in the order paw needs them (required first).
 */
function placeholdersFor(
  operationId: RestOperationId,
  names: readonly string[],
): RoutePlaceholder[] {
  const { required, optional } = ROUTE_FILLS[operationId];
  const byName = (name: string): RoutePlaceholder | undefined => {
    const lower = name.toLowerCase();
    if (/job|request|task/.test(lower)) return 'jobId';
    if (/cluster/.test(lower)) return 'clusterId';
    if (/sla/.test(lower)) return 'slaDomainId';
    if (/workload|object|snappable|fid/.test(lower)) return 'workloadId';
    return undefined;
  };
  const remaining = [...required, ...optional];
  const chosen = names.map((name) => {
    const named = byName(name);
    if (named !== undefined && remaining.includes(named)) {
      remaining.splice(remaining.indexOf(named), 1);
      return named;
    }
    return undefined;
  });
  return chosen.map((placeholder) => placeholder ?? remaining.shift() ?? 'workloadId');
}

function squash(word: string): string {
  return word.toLowerCase().replace(/[\s_.-]+/g, '');
}
