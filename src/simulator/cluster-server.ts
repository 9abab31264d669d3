import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Logger } from '../shared/logger.js';
import type { Principal } from './accounts.js';
import { isoTime } from './clock.js';
import { PAT_MINIMUM_VERSION, versionAtLeast } from './cluster-version.js';
import { describeError } from './error-handler.js';
import { bearerToken, installTrafficHooks } from './gateway.js';
import type { SimCluster } from './records.js';
import { snapshotJobView } from './rest-views.js';
import { operation, type ZodApp } from './route-config.js';
import type { SimulatorState } from './simulator-state.js';
import { createSimulatorApp } from './simulator-app.js';

type ErrorType = 'user_error' | 'permission_error' | 'server_error';

function clusterError(errorType: ErrorType, message: string) {
  return { errorType, message, cause: null };
}

const credentials = z.object({ clientId: z.string().min(1), clientSecret: z.string().min(1) });

/**
 * One simulated cluster on its own origin: session creation with service-account or personal
 * access token credentials (validated against the platform's accounts), session deletion,
 * and two read routes to exercise a session. A cap limits live sessions per account.
 */
export function buildClusterServer(
  state: SimulatorState,
  cluster: SimCluster,
  timers: Set<NodeJS.Timeout>,
  logger: Logger,
): ZodApp {
  const app = createSimulatorApp();

  const authenticate = (request: FastifyRequest, reply: FastifyReply): boolean => {
    const token = bearerToken(request.headers.authorization);
    const check = token === undefined ? undefined : state.clusterSessions.check(cluster.id, token);
    if (check?.status === 'valid' && state.accounts.exists(check.session.principal)) {
      request.principal = check.session.principal;
      return true;
    }
    void reply
      .code(401)
      .send(
        clusterError(
          'user_error',
          check?.status === 'expired'
            ? 'The session token has expired'
            : 'Missing or invalid session token',
        ),
      );
    return false;
  };
  installTrafficHooks(app, state, {
    authenticate,
    timers,
    logger: logger.child({ cluster: cluster.name }),
  });

  app.setErrorHandler((error, _request, reply) => {
    const { status, message } = describeError(error);
    return reply
      .code(status)
      .send(clusterError(status >= 500 ? 'server_error' : 'user_error', message));
  });
  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send(
        clusterError('user_error', `no route ${request.method} ${request.url.split('?')[0] ?? ''}`),
      ),
  );

  const createSession = (
    reply: FastifyReply,
    clientId: string,
    principal: Principal,
  ): { id: string; token: string; expirationTime: string } | undefined => {
    const session = state.clusterSessions.create(cluster.id, clientId, principal);
    if (session === undefined) {
      void reply
        .code(403)
        .send(
          clusterError(
            'permission_error',
            `Maximum number of sessions (${state.clusterSessions.sessionCap}) reached for ${clientId} on this cluster; delete sessions you no longer need`,
          ),
        );
      return undefined;
    }
    return { id: session.id, token: session.token, expirationTime: isoTime(session.expiresAt) };
  };

  app.route({
    method: 'POST',
    url: '/api/v1/service_account/session',
    config: operation('createServiceAccountSession', 'cluster'),
    schema: { body: credentials },
    handler: async (request, reply) => {
      const { clientId, clientSecret } = request.body;
      const check = state.accounts.checkServiceAccountSecret(clientId, clientSecret);
      if (!check.ok) {
        return reply
          .code(401)
          .send(clusterError('user_error', 'Incorrect client id or client secret'));
      }
      const session = createSession(reply, check.account.clientId, {
        kind: 'serviceAccount',
        uuid: check.account.uuid,
      });
      if (session === undefined) return reply;
      return {
        sessionId: session.id,
        serviceAccountId: check.account.clientId,
        token: session.token,
        expirationTime: session.expirationTime,
        organizationId: '',
      };
    },
  });

  app.route({
    method: 'POST',
    url: '/api/v1/personal_access_token/session',
    config: operation('createPersonalAccessTokenSession', 'cluster'),
    // Validated by hand: an old cluster has no such endpoint, whatever the body.
    handler: async (request, reply) => {
      if (!versionAtLeast(cluster.version, PAT_MINIMUM_VERSION)) {
        return reply
          .code(404)
          .send(
            clusterError(
              'user_error',
              `Personal access token sessions require cluster software ${PAT_MINIMUM_VERSION} or later; this cluster runs ${cluster.version}`,
            ),
          );
      }
      const parsed = credentials.safeParse(request.body);
      if (!parsed.success) {
        return reply
          .code(400)
          .send(clusterError('user_error', 'The body must be JSON with clientId and clientSecret'));
      }
      const check = state.accounts.checkPersonalAccessToken(
        parsed.data.clientId,
        parsed.data.clientSecret,
      );
      if (!check.ok) {
        return reply
          .code(401)
          .send(clusterError('user_error', 'Incorrect personal access token credentials'));
      }
      const session = createSession(reply, check.account.clientId, {
        kind: 'user',
        userId: check.account.ownerUserId,
      });
      if (session === undefined) return reply;
      return {
        clientId: check.account.clientId,
        token: session.token,
        expirationTime: session.expirationTime,
        organizationId: '',
      };
    },
  });

  app.route({
    method: 'DELETE',
    url: '/api/v1/session/:sessionId',
    config: operation('deleteClusterSession', 'cluster', { bearerAuth: true }),
    schema: { params: z.object({ sessionId: z.string().min(1) }) },
    handler: async (request, reply) => {
      const caller = state.clusterSessions.check(
        cluster.id,
        bearerToken(request.headers.authorization) ?? '',
      );
      if (caller.status !== 'valid')
        throw new Error('the session check let an invalid token through');
      const { sessionId } = request.params;
      const target = sessionId === 'me' ? caller.session : state.clusterSessions.find(sessionId);
      // Another account's session, or another cluster's, is as good as unknown.
      if (
        target === undefined ||
        target.deleted ||
        target.clusterId !== cluster.id ||
        target.clientId !== caller.session.clientId
      ) {
        return reply.code(404).send(clusterError('user_error', `Session ${sessionId} not found`));
      }
      state.clusterSessions.delete(target);
      return reply.code(204).send();
    },
  });

  app.route({
    method: 'GET',
    url: '/api/v1/cluster/me/version',
    config: operation('getClusterVersion', 'cluster'),
    handler: async () => ({ version: cluster.version }),
  });

  app.route({
    method: 'GET',
    url: '/api/v1/cluster/me',
    config: operation('getCluster', 'cluster', { bearerAuth: true }),
    handler: async () => ({ id: cluster.id, name: cluster.name, version: cluster.version }),
  });

  // Where the platform's job links point (a cluster node, as the real platform's do): the job
  // as the cluster knows it, to a cluster session token only.
  app.route({
    method: 'GET',
    url: '/api/v1/snapshot-jobs/:jobId',
    config: operation('getClusterSnapshotJob', 'cluster', { bearerAuth: true }),
    schema: { params: z.object({ jobId: z.string().min(1) }) },
    handler: async (request, reply) => {
      const job = state.jobs.find(request.params.jobId);
      if (job === undefined || job.workload.cluster.id !== cluster.id) {
        return reply
          .code(404)
          .send(clusterError('user_error', `No job ${request.params.jobId} on this cluster`));
      }
      const { links: _links, workloadId: _workload, ...record } = snapshotJobView(state, job);
      return record;
    },
  });

  return app;
}
