import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Settings } from '../config/settings-schema.js';
import { formatProblem } from '../definitions/definition-problem.js';
import { DefinitionSet } from '../definitions/definition-set.js';
import { JOB_KINDS, type JobDefinition } from '../definitions/job-definition.js';
import { UsageError } from '../shared/usage-error.js';
import type { Logger } from '../shared/logger.js';
import { CorruptChunkError } from '../outcomes/corrupt-chunk-error.js';
import { Outcomes } from '../outcomes/outcomes.js';
import { OUTCOME_STATUSES, type OutcomeStatus } from '../outcomes/outcome-status.js';
import type { PlatformClient } from '../platform/platform-client.js';
import { connectRedis, createRedisConnection } from '../redis/redis-connection.js';
import { RunQueues } from '../queue/run-queues.js';
import { DASHBOARD_CSS, DASHBOARD_JS } from './dashboard/dashboard-assets.js';
import { RunItemsReader } from '../outcomes/run-items-reader.js';
import { RunPictures } from './dashboard/run-pictures.js';
import {
  loadDashboardModel,
  loadDefinitionViews,
  loadQueueViews,
  loadRunView,
  type WatchedQueue,
} from './dashboard/dashboard-model.js';
import {
  renderDashboardContent,
  renderDashboardPage,
  type PageContext,
} from './dashboard/dashboard-page.js';
import { checkReadiness } from './health/readiness.js';
import type { PawMetrics } from './metrics/paw-metrics.js';
import { createNotifyQueue } from '../queue/notifications/notification-queue.js';
import { OpsAccess } from './auth/ops-access.js';
import { SchedulePauses } from '../scheduler/schedule-pauses.js';
import { OperatorActions } from '../outcomes/operator-actions.js';
import { registerQueuesUi } from './queues-ui.js';
import { refuseRepeatedQuery } from './repeated-query.js';
import { RateLimitRecord } from '../platform/rate-limit/rate-limit-record.js';
import { registerRetryRoute } from './retry-route.js';
import { registerCoverageRoute } from './coverage-route.js';
import {
  FIRST_REQUEST_MS,
  PROBATION_FIRST_REQUEST_MS,
  PROBATION_PER_CONNECTION,
  opsServerLimits,
} from './server-limits.js';
import { ConnectionBudget, type BudgetRefusal } from './connection-budget.js';

export interface OpsServerOptions {
  readonly settings: Settings;
  readonly logger: Logger;
  /** What this process is (`scheduler`, `worker`, `start`, `demo`): shown on the page and in `/healthz`. */
  readonly role: string;
  readonly version: string;
  readonly metrics: PawMetrics;
  /** The definitions this process loaded (the dashboard lists them); a worker may have none. */
  readonly definitions?: DefinitionSet | readonly JobDefinition[];
  /**
   * The process's platform client, for `/readyz` and the coverage views; none for a process that
   * never calls the platform.
   */
  readonly platform?: PlatformClient;
  /**
   * Whether `/readyz` waits for the platform (true by default). A scheduler calls it only for
   * protection coverage: a platform outage must not take it out of its Service, nor block a node
   * drain through its disruption budget, while it fires on.
   */
  readonly readinessChecksPlatform?: boolean;
  /** The process's outcomes, which the dashboard shows; a server started alone reads its own. */
  readonly outcomes?: Outcomes;
  /** Overrides `http.port` (0 = a free port, which tests and the demo use). */
  readonly port?: number;
  /** Overrides `http.host`. */
  readonly host?: string;
  /** Seconds between dashboard refreshes; 10 by default. */
  readonly refreshSeconds?: number;
}

/** A running ops server. */
export interface OpsServer {
  /** `http://host:port` (the actual port when 0 was asked). */
  readonly url: string;
  readonly port: number;
  /** Stops listening and closes its Redis connection. */
  close(): Promise<void>;
}

/** Headers of paw's own pages: nothing from elsewhere, nothing inline, never cached. */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/**
 * Starts the HTTP server every long-running paw process serves on `http.port`
 * (`PAW_HTTP_PORT`, 8090; 0 turns it off, and then this returns `undefined`):
 * - `/healthz`: the process is alive (200 while its event loop turns);
 * - `/readyz`: Redis answers and a platform token can be had (503 naming what failed);
 * - `/metrics`: Prometheus text;
 * - `/`: the dashboard (definitions with their last runs as a strip, recent runs with their
 *   problem items and pictures, queues), refreshing itself; `/api/dashboard`, `/api/runs`,
 *   `/api/runs/:runId`, `/api/definitions`, `/api/queues`, `/api/actions` as JSON;
 * - `/api/coverage`: each snapshot definition's workloads and whether they are protected
 *   (`paw coverage --json`); `/coverage`, the same with each workload's last 14 runs as marks;
 *   `/api/items?target=`, a workload's items (coverage-route.ts);
 * - `POST /api/runs/:runId/retry`: the dashboard's retry (`paw retry`), in write mode only;
 * - `/queues`: bull-board, read-only unless `http.queuesReadOnly` is false.
 *
 * It opens its own Redis connection (so readiness tests Redis itself) and its own read-only
 * queue handles. Register `close()` with the process's Shutdown.
 */
export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer | undefined> {
  const { settings, metrics } = options;
  const port = options.port ?? settings.http.port;
  if (options.port === undefined && port === 0) return undefined;
  const host = options.host ?? settings.http.host;
  const logger = options.logger.child({ subsystem: 'ops-server' });

  const redis = createRedisConnection(settings.redis, 'service', logger);
  const runQueues = new RunQueues(redis, settings);
  const notifyQueue = createNotifyQueue(redis, settings);
  const watched: WatchedQueue[] = [
    ...JOB_KINDS.map((kind) => ({ kind, queue: runQueues.queue(kind) })),
    { kind: 'notify', queue: notifyQueue },
  ];
  const outcomes = options.outcomes ?? new Outcomes(redis, settings.redis.prefix);
  metrics.queues.watch(watched.map((entry) => entry.queue));
  const closeRedisSide = async (): Promise<void> => {
    metrics.queues.watch([]);
    await Promise.allSettled([runQueues.close(), notifyQueue.close()]);
    await redis.quit().catch(() => redis.disconnect());
  };

  const app = Fastify({
    logger: false,
    forceCloseConnections: true,
    ...opsServerLimits(settings.http),
  });
  budgetConnections(app, settings.http, logger);
  try {
    // Before anything listens: a server that would be open to the network refuses to start.
    const access = new OpsAccess(settings.http, logger, host);
    app.addHook('onRequest', access.hook);
    app.addHook('preValidation', refuseRepeatedQuery);
    app.setErrorHandler(answerKnownFailures(logger));
    await connectRedis(redis, settings.redis.url);
    const actions = new OperatorActions(redis, settings.redis.prefix, logger);
    await registerRoutes(app, { ...options, redis, outcomes, watched, actions, runQueues });
    await app.listen({ port, host });
  } catch (error) {
    await app.close().catch(() => undefined);
    await closeRedisSide();
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new UsageError(
        `port ${port} on ${host} is in use (health, metrics and dashboard): set PAW_HTTP_PORT ` +
          '(http.port) to a free port, or 0 to turn the ops server off',
      );
    }
    throw error;
  }
  const address = app.server.address();
  const actualPort = typeof address === 'object' && address !== null ? address.port : port;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const url = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${actualPort}`;
  logger.info({ url, role: options.role }, 'ops server listening');

  let closing: Promise<void> | undefined;
  return {
    url,
    port: actualPort,
    close: () => {
      closing ??= (async () => {
        await app.close().catch(() => undefined);
        await closeRedisSide();
      })();
      return closing;
    },
  };
}

interface RouteContext extends OpsServerOptions {
  readonly redis: ReturnType<typeof createRedisConnection>;
  readonly outcomes: Outcomes;
  readonly watched: readonly WatchedQueue[];
  readonly actions: OperatorActions;
  readonly runQueues: RunQueues;
}

/**
 * `/readyz`'s word on the definitions: running as loaded, a reload refused and why, or none to
 * run (the folder held none: the problem names it).
 */
function definitionsCheck(definitions: DefinitionSet) {
  const refused = definitions.refused();
  const count = definitions.current().length;
  if (refused === undefined) return { status: 'ok' as const, count };
  return {
    status: count === 0 ? ('none' as const) : ('change refused' as const),
    count,
    refusedAt: refused.at,
    problems: refused.problems.map(formatProblem),
  };
}

async function registerRoutes(app: FastifyInstance, context: RouteContext): Promise<void> {
  const { metrics, watched, settings } = context;
  const { queries } = context.outcomes;
  const prefix = settings.redis.prefix;
  const startedAt = Date.now();
  // The set a reload replaces: read at each request, never copied.
  const definitionSet =
    context.definitions === undefined ? undefined : DefinitionSet.from(context.definitions);
  const page: PageContext = {
    role: context.role,
    version: context.version,
    queuesUi: true,
    refreshSeconds: context.refreshSeconds ?? 10,
    retry: settings.http.queuesReadOnly
      ? { offered: false, why: 'this dashboard is read-only: http.queuesReadOnly' }
      : definitionSet === undefined
        ? {
            offered: false,
            why: 'this process loaded no job definitions; a scheduler’s dashboard offers it',
          }
        : { offered: true },
  };
  const pauses = new SchedulePauses(context.redis, prefix);
  const items = new RunItemsReader(context.redis, prefix);
  const pictures = new RunPictures(
    items,
    new RateLimitRecord(context.redis, prefix, settings.outcomes.retentionDays * 86_400),
  );
  const sources = () => {
    const refused = definitionSet?.refused();
    return {
      queries,
      items,
      pictures,
      queues: watched,
      pauses,
      ...(definitionSet === undefined ? {} : { definitions: definitionSet.current() }),
      ...(refused === undefined
        ? {}
        : { refusedChange: { at: refused.at, problems: refused.problems.map(formatProblem) } }),
    };
  };

  app.get('/healthz', async () => ({
    status: 'ok',
    role: context.role,
    version: context.version,
    uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
  }));

  app.get('/readyz', async (request, reply) => {
    const report = await checkReadiness({
      redis: context.redis,
      ...(context.platform === undefined || context.readinessChecksPlatform === false
        ? {}
        : { platform: context.platform }),
    });
    const status = report.ready ? 'ready' : 'not ready';
    // A refused reload does not make the process unready: the last valid set keeps running. Nor
    // does having none: the process still serves its dashboard, and an alert says so.
    const detail =
      definitionSet === undefined
        ? report
        : { ...report, definitions: definitionsCheck(definitionSet) };
    // What failed and why is for those who may see the dashboard.
    return reply
      .code(report.ready ? 200 : 503)
      .send(request.opsUser === undefined ? { status } : { status, ...detail });
  });

  app.get('/metrics', async (_request, reply) => {
    const text = await metrics.text();
    return reply.type(metrics.contentType).send(text);
  });

  app.get('/', async (_request, reply) => {
    const model = await loadDashboardModel(sources());
    return sendPage(reply, 'text/html; charset=utf-8', renderDashboardPage(model, page));
  });
  app.get('/dashboard/content', async (_request, reply) => {
    const model = await loadDashboardModel(sources());
    return sendPage(reply, 'text/html; charset=utf-8', renderDashboardContent(model, page).text);
  });
  app.get('/dashboard.css', async (_request, reply) =>
    sendPage(reply, 'text/css; charset=utf-8', DASHBOARD_CSS),
  );
  app.get('/dashboard.js', async (_request, reply) =>
    sendPage(reply, 'text/javascript; charset=utf-8', DASHBOARD_JS),
  );

  app.get('/api/dashboard', async () => loadDashboardModel(sources()));
  app.get('/api/definitions', async (_request, reply) => {
    if (definitionSet === undefined) {
      return reply.code(404).send({ error: 'this process loaded no job definitions (a worker)' });
    }
    return loadDefinitionViews(queries, definitionSet.current(), new Date());
  });
  app.get('/api/queues', async () => loadQueueViews(watched));
  app.get('/api/actions', async () => context.actions.list());
  app.get<{ Querystring: { limit?: string; definition?: string; status?: string } }>(
    '/api/runs',
    async (request, reply) => {
      const limit = Number(request.query.limit ?? '50');
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
        return reply.code(400).send({ error: 'limit must be a whole number from 1 to 1000' });
      }
      const statuses = request.query.status?.split(',').filter((status) => status !== '');
      const unknown = statuses?.filter(
        (status) => !OUTCOME_STATUSES.includes(status as OutcomeStatus),
      );
      if (unknown !== undefined && unknown.length > 0) {
        return reply.code(400).send({
          error: `unknown status ${unknown.join(', ')}; known: ${OUTCOME_STATUSES.join(', ')}`,
        });
      }
      return queries.listRuns({
        limit,
        ...(request.query.definition === undefined
          ? {}
          : { definitionId: request.query.definition }),
        ...(statuses === undefined ? {} : { statuses: statuses as OutcomeStatus[] }),
      });
    },
  );
  app.get<{ Params: { runId: string }; Querystring: { items?: string } }>(
    '/api/runs/:runId',
    async (request, reply) => {
      const run = await context.outcomes.runs.get(request.params.runId);
      if (run === undefined) return reply.code(404).send({ error: 'no such run' });
      const itemsPerRun = Number(request.query.items ?? '100');
      return loadRunView(
        items,
        run,
        Number.isInteger(itemsPerRun) ? Math.min(itemsPerRun, 5000) : 100,
        pictures,
      );
    },
  );
  registerCoverageRoute(app, {
    coverage: context.outcomes.coverage,
    platform: context.platform,
    definitions: () => definitionSet?.current(),
    queries,
    items,
    page,
    sendHtml: (reply, body) => sendPage(reply, 'text/html; charset=utf-8', body),
  });
  registerRetryRoute(app, {
    outcomes: context.outcomes,
    redis: context.redis,
    settings,
    queues: context.runQueues,
    actions: context.actions,
    definitions: () => definitionSet?.current(),
  });
  await registerQueuesUi(app, watched, {
    readOnly: settings.http.queuesReadOnly,
    redis: context.redis,
    actions: context.actions,
  });
}

/**
 * Puts the server's connections on a budget (connection-budget.ts) and says, at most once a
 * minute, what it closed and why.
 */
function budgetConnections(app: FastifyInstance, http: Settings['http'], logger: Logger): void {
  let closed: Partial<Record<BudgetRefusal, number>> = {};
  let lastLog = 0;
  const perAddress = Math.min(http.maxConnectionsPerAddress, http.maxConnections);
  const budget = new ConnectionBudget(
    {
      total: http.maxConnections,
      perAddress,
      firstRequestMs: Math.min(FIRST_REQUEST_MS, http.requestTimeoutMs),
      probation: PROBATION_PER_CONNECTION * http.maxConnections,
      probationFirstRequestMs: PROBATION_FIRST_REQUEST_MS,
    },
    (why, address) => {
      closed[why] = (closed[why] ?? 0) + 1;
      if (Date.now() - lastLog < 60_000) return;
      logger.warn(
        {
          maxConnections: http.maxConnections,
          maxConnectionsPerAddress: perAddress,
          closed,
          lastAddress: address,
        },
        `the ops server closed connections beyond its budget (http.maxConnections ${http.maxConnections}, ` +
          `http.maxConnectionsPerAddress ${perAddress}): ${why}`,
      );
      lastLog = Date.now();
      closed = {};
    },
  );
  budget.attach(app.server);
}

/**
 * Failures with a message meant for the reader get it, as JSON: a corrupt packed chunk (one
 * run's items, 500 and logged). Anything else is fastify's own answer.
 */
function answerKnownFailures(logger: Logger) {
  return (error: Error, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    if (!(error instanceof CorruptChunkError)) throw error;
    logger.error({ runId: error.runId, path: request.url.split('?')[0] }, error.message);
    return reply.code(500).send({ error: error.message });
  };
}

function sendPage(reply: FastifyReply, type: string, body: string): FastifyReply {
  return reply.headers(PAGE_HEADERS).type(type).send(body);
}
