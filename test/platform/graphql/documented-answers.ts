import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TINY_CLIENT_ID, startTinyServer, tokenAnswer, type TinyServer } from '../tiny-server.js';

/**
 * The platform's GraphQL answer shapes as its developer center documents them ("Troubleshooting"),
 * for an independent tiny platform on 127.0.0.1 to answer paw with: a refused document, a field
 * withheld beside the data, not found, a bare 429.
 */

/** HTTP 200 (or 400), and not a GraphQL result: the gateway's body for a document it refuses. */
export function refusedDocument(field: string, type: string, suggestion = '') {
  return {
    code: 400,
    uri: '/api/graphql',
    traceSpan: {
      traceId: 'yQq0Pl2VftOESD4kCtiFdg==',
      operation: '/api/graphql',
      spanId: 'hEMkvglH1gc=',
    },
    message:
      '[QueryAnalysisError] [DLC Team] Encountered Client error (400) executing query with ' +
      `operations: [] and variables {}. Error: Query does not pass validation. Violations:\n\n` +
      `Cannot query field '${field}' on type '${type}'.${suggestion} (line 6, column 7):\n` +
      `      ${field}\n      ^`,
  };
}

/** The error beside `data` for a field behind a feature flag, a licence or a role. */
export function withheldField(path: readonly (string | number)[]) {
  return {
    message: 'Account does not have the appropriate features enabled to access the field.',
    path,
    locations: [{ line: 5, column: 7 }],
    extensions: {
      code: 403,
      trace: {
        operation: '/api/graphql',
        traceId: '9v0wj/Sm9UVOdUFd1ottJQ==',
        spanId: 'Jygbg58zl/M=',
      },
    },
  };
}

/** `data` null and the platform's not-found error for the operation at `path`. */
export function notFound(path: string) {
  return {
    data: null,
    errors: [
      {
        message:
          'NOT_FOUND: Unable to find managed object for ID or you are not authorized to access it',
        path: [path],
        locations: [{ line: 2, column: 3 }],
        extensions: {
          code: 404,
          trace: {
            operation: '/api/graphql',
            traceId: 'gwzt2HR5GinN4PrhQfJ+Bg==',
            spanId: '/MR1LoaAiD8=',
          },
        },
      },
    ],
  };
}

export const PAGE_INFO = {
  endCursor: '',
  hasNextPage: false,
  hasPreviousPage: false,
  startCursor: '',
};

/** A GraphQL request as the tiny platform received it. */
export interface GraphqlCall {
  readonly operationName: string;
  readonly query: string;
  readonly variables: Record<string, unknown>;
}

/** An answer: `body` as JSON with `status` (200 by default), or nothing (a 404 page). */
export type GraphqlAnswer = { readonly status?: number; readonly body?: unknown } | undefined;

/** A tiny platform answering GraphQL with `answer`, and how paw is pointed at it. */
export interface TinyGraphqlPlatform {
  readonly server: TinyServer;
  readonly calls: GraphqlCall[];
  /** The environment of a `paw` process using this platform through GraphQL. */
  env(): Record<string, string>;
  /** A service-account credentials file for this platform, written into `dir`. */
  credentialsFile(dir: string): Promise<string>;
  close(): Promise<void>;
}

export async function startTinyGraphqlPlatform(
  answer: (call: GraphqlCall) => GraphqlAnswer,
): Promise<TinyGraphqlPlatform> {
  const calls: GraphqlCall[] = [];
  const server = await startTinyServer((request) => {
    if (request.url.pathname === '/api/client_token') return tokenAnswer(TINY_CLIENT_ID);
    if (request.url.pathname === '/api/session') return { status: 204 };
    if (request.url.pathname !== '/api/graphql') return undefined;
    const call = JSON.parse(request.body) as GraphqlCall;
    calls.push(call);
    const answered = answer(call);
    if (answered === undefined) return undefined;
    return { status: answered.status ?? 200, body: answered.body };
  });
  return {
    server,
    calls,
    env: () => ({
      PAW_PLATFORM_URL: server.baseUrl,
      PAW_CLIENT_ID: TINY_CLIENT_ID,
      PAW_CLIENT_SECRET: 'tiny-secret',
      PAW_PLATFORM_API: 'graphql',
      PAW_PLATFORM_RETRY_BASE_DELAY_MS: '10',
    }),
    async credentialsFile(dir) {
      const file = join(dir, 'tiny-platform.json');
      await writeFile(
        file,
        JSON.stringify({
          client_id: TINY_CLIENT_ID,
          client_secret: 'tiny-secret',
          name: 'tiny',
          access_token_uri: `${server.baseUrl}/api/client_token`,
        }),
      );
      await chmod(file, 0o600);
      return file;
    },
    close: () => server.close(),
  };
}

/** A global SLA Domain node as `slaDomains` answers it. */
export function globalSla(id: string, name: string, extra: Record<string, unknown> = {}) {
  return {
    __typename: 'GlobalSlaReply',
    id,
    name,
    description: `${name} protection`,
    objectTypes: ['VSPHERE_OBJECT_TYPE', 'MSSQL_OBJECT_TYPE'],
    protectedObjectCount: 12,
    pausedClustersInfo: { pausedClustersCount: 0, pausedClusters: [] },
    ...extra,
  };
}

/** A cluster-local SLA Domain node (`ClusterSlaDomain`): only the interface's fields and its own. */
export function clusterSla(
  id: string,
  name: string,
  cluster: { id: string; name: string },
  extra: Record<string, unknown> = {},
) {
  return { __typename: 'ClusterSlaDomain', id, name, protectedObjectCount: 4, cluster, ...extra };
}

/** An answer to paw's `slaDomains` listing: these nodes on one page, `errors` beside them. */
export function slaDomainsAnswer(nodes: readonly unknown[], errors?: readonly unknown[]) {
  return {
    body: {
      data: { slaDomains: { count: nodes.length, nodes, pageInfo: PAGE_INFO } },
      ...(errors === undefined ? {} : { errors }),
    },
  };
}

/** An answer to paw's `globalSlaStatuses`: the pause state on one cluster, nobody's pause. */
export function pauseStatusAnswer(cluster: { id: string; name: string }, pauseStatus: string) {
  const nodes = [{ cluster, pauseStatus, pausedSlaInfo: null }];
  return { body: { data: { globalSlaStatuses: { count: 1, nodes, pageInfo: PAGE_INFO } } } };
}
