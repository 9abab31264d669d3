import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Logger } from '../shared/logger.js';
import { installPlatformErrorHandlers } from './error-handler.js';
import { authenticatePlatformRequest, installTrafficHooks } from './gateway.js';
import { OPENAPI_DOCUMENT_PATHS, openApiOptions } from './openapi-document.js';
import type { ZodApp } from './route-config.js';
import { registerClusterAndEventRoutes } from './routes/cluster-and-event-routes.js';
import { registerGraphqlRoute } from './routes/graphql-route.js';
import { registerOAuthRoutes } from './routes/oauth-routes.js';
import { registerSimRoutes } from './routes/sim-routes.js';
import { registerSlaDomainRoutes } from './routes/sla-domain-routes.js';
import { registerTokenRoutes } from './routes/token-routes.js';
import { registerWorkloadRoutes } from './routes/workload-routes.js';
import type { SimulatorState } from './simulator-state.js';
import { createSimulatorApp } from './simulator-app.js';

/**
 * The platform on `{base_url}`: the token endpoint, session deletion, GraphQL, OAuth, the
 * task-based REST interface with its OpenAPI document and browsable reference, and `/_sim`.
 */
export async function buildPlatformServer(
  state: SimulatorState,
  timers: Set<NodeJS.Timeout>,
  logger: Logger,
): Promise<ZodApp> {
  const app = createSimulatorApp();
  installTrafficHooks(app, state, {
    authenticate: authenticatePlatformRequest(state),
    timers,
    logger,
  });
  installPlatformErrorHandlers(app, logger);

  const layout = state.options.restLayout;
  const documentPath = OPENAPI_DOCUMENT_PATHS[layout];
  await app.register(fastifySwagger, openApiOptions(layout));
  await app.register(fastifySwaggerUi, {
    routePrefix: DOCS_PATH,
    // The default layout's page names its document `./json`, as Swagger UI does out of the box;
    // the v2 layout's names only its own address, so a client must read the page to find it.
    ...(layout === 'default' ? {} : { uiHooks: { preHandler: namingDocument(documentPath) } }),
  });

  await app.register(
    async (rest) => {
      const scoped = rest.withTypeProvider<ZodTypeProvider>();
      registerWorkloadRoutes(scoped, state);
      registerSlaDomainRoutes(scoped, state);
      registerClusterAndEventRoutes(scoped, state);
    },
    { prefix: '/api/rest' },
  );
  app.get(documentPath, { schema: { hide: true } }, async () => app.swagger());
  registerTokenRoutes(app, state);
  registerGraphqlRoute(app, state);
  registerOAuthRoutes(app, state);
  registerSimRoutes(app, state);
  return app;
}

const DOCS_PATH = '/api/rest/docs';

/**
 * A hook of the Swagger UI routes that makes the page name `documentPath` (its initializer
 * script) and refuses Swagger UI's own `./json` and `./yaml` copies.
 */
function namingDocument(
  documentPath: string,
): (request: FastifyRequest, reply: FastifyReply, done: () => void) => void {
  const initializer =
    'window.onload = function () {\n' +
    '  window.ui = SwaggerUIBundle({\n' +
    `    url: ${JSON.stringify(documentPath)},\n` +
    "    dom_id: '#swagger-ui',\n" +
    '    deepLinking: true,\n' +
    '    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],\n' +
    "    layout: 'StandaloneLayout',\n" +
    '  });\n' +
    '};\n';
  return (request, reply, done) => {
    const path = request.url.split('?')[0] ?? '';
    // Answering without calling done() ends the request here: the route's handler never runs.
    if (path.endsWith('/swagger-initializer.js')) {
      void reply.type('application/javascript; charset=utf-8').send(initializer);
    } else if (path === `${DOCS_PATH}/json` || path === `${DOCS_PATH}/yaml`) {
      void reply.code(404).send({ code: 404, message: 'not found' });
    } else {
      done();
    }
  };
}
