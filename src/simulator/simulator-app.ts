import Fastify from 'fastify';
import {
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { registerBodyParsers } from './body-parsers.js';
import type { ZodApp } from './route-config.js';

/**
 * A server of the simulator (the platform's, or a cluster's): routes validated and serialized by
 * their zod schemas, and bodies parsed the way the platform takes them.
 */
export function createSimulatorApp(): ZodApp {
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
  return app;
}
