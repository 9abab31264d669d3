import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify from 'fastify';
import {
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { Logger } from '../log/logger.js';
import { registerBodyParsers } from './body-parsers.js';
import { installPlatformErrorHandlers } from './error-handler.js';
import { authenticatePlatformRequest, installTrafficHooks } from './gateway.js';
import { openApiOptions } from './openapi-document.js';
import type { ZodApp } from './route-config.js';
import { registerClusterAndEventRoutes } from './routes/cluster-and-event-routes.js';
import { registerGraphqlRoute } from './routes/graphql-route.js';
import { registerOAuthRoutes } from './routes/oauth-routes.js';
import { registerSimRoutes } from './routes/sim-routes.js';
import { registerSlaDomainRoutes } from './routes/sla-domain-routes.js';
import { registerTokenRoutes } from './routes/token-routes.js';
import { registerWorkloadRoutes } from './routes/workload-routes.js';
import type { SimulatorState } from './simulator-state.js';

/**
 * The platform on `{base_url}`: the token endpoint, session deletion, GraphQL, OAuth, the
 * task-based REST interface with its OpenAPI document and browsable reference, and `/_sim`.
 */
export async function buildPlatformServer(
  state: SimulatorState,
  timers: Set<NodeJS.Timeout>,
  logger: Logger,
): Promise<ZodApp> {
  const app = Fastify({
    logger: false,
    // Hung connections (an injected fault) must not keep `close()` waiting.
    forceCloseConnections: true,
    // Job ids are ~100 characters, beyond find-my-way's default limit for a path parameter.
    routerOptions: { maxParamLength: 1000 },
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerBodyParsers(app);
  installTrafficHooks(app, state, {
    authenticate: authenticatePlatformRequest(state),
    timers,
    logger,
  });
  installPlatformErrorHandlers(app, logger);

  await app.register(fastifySwagger, openApiOptions);
  await app.register(fastifySwaggerUi, { routePrefix: '/api/rest/docs' });

  await app.register(
    async (rest) => {
      const scoped = rest.withTypeProvider<ZodTypeProvider>();
      registerWorkloadRoutes(scoped, state);
      registerSlaDomainRoutes(scoped, state);
      registerClusterAndEventRoutes(scoped, state);
    },
    { prefix: '/api/rest' },
  );
  app.get('/api/rest/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  registerTokenRoutes(app, state);
  registerGraphqlRoute(app, state);
  registerOAuthRoutes(app, state);
  registerSimRoutes(app, state);
  return app;
}
