import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { Logger } from '../shared/logger.js';
import { RestError, errorEnvelope } from './rest-error.js';
import type { ZodApp } from './route-config.js';
import { SimRouteError } from './routes/sim-routes.js';

/** A thrown error as status and message, whatever threw it. */
export function describeError(error: unknown): { status: number; message: string; code?: string } {
  if (error instanceof RestError)
    return { status: error.status, message: error.message, code: error.code };
  if (error instanceof SimRouteError) return { status: error.status, message: error.message };
  if (hasZodFastifySchemaValidationErrors(error)) {
    const context = (error as { validationContext?: string }).validationContext ?? 'request';
    const problems = error.validation.map((problem) => {
      const path = problem.instancePath.replace(/^\//, '').replaceAll('/', '.');
      return `${path === '' ? context : path}: ${problem.message ?? 'invalid'}`;
    });
    return { status: 400, message: `invalid ${context}: ${problems.join('; ')}` };
  }
  const statusCode = (error as Partial<FastifyError>).statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    return { status: statusCode, message: error instanceof Error ? error.message : String(error) };
  }
  return { status: 500, message: 'internal error' };
}

/**
 * Errors and unknown routes of the platform server, each in the format of the operation that
 * failed: the REST envelope, the token endpoint's body, OAuth's, GraphQL's, or `{ error }` for `/_sim`.
 */
export function installPlatformErrorHandlers(app: ZodApp, logger: Logger): void {
  app.setErrorHandler((error, request, reply) => {
    const described = describeError(error);
    if (described.status >= 500)
      logger.error({ err: error, url: request.url }, 'simulator route failed');
    return sendError(request, reply, described);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? request.url;
    return sendError(request, reply, {
      status: 404,
      message: `no route ${request.method} ${path}`,
      code: 'NOT_FOUND',
    });
  });
}

function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  described: { status: number; message: string; code?: string },
): FastifyReply {
  const { status, message } = described;
  const path = request.url.split('?')[0] ?? request.url;
  const surface = request.routeOptions.config.surface;
  if (surface === 'rest' || (surface === undefined && path.startsWith('/api/rest/'))) {
    // The envelope answers malformed requests 400, whatever fastify called them (415, 413).
    const restStatus =
      status >= 500 ? 500 : status === 403 || status === 404 || status === 409 ? status : 400;
    const code =
      described.code ??
      (restStatus === 500 ? 'INTERNAL' : restStatus === 404 ? 'NOT_FOUND' : 'INVALID_ARGUMENT');
    return reply
      .code(described.code === undefined ? restStatus : status)
      .send(errorEnvelope(code, message));
  }
  switch (surface) {
    case 'token':
      return reply
        .code(status)
        .send({ code: status, uri: path, message: `INVALID_ARGUMENT: ${message}` });
    case 'oauth':
      return reply.code(status >= 500 ? 500 : 400).send({
        error: status >= 500 ? 'server_error' : 'invalid_request',
        error_description: message,
      });
    case 'graphql':
      return reply.code(status).send({
        code: status,
        message: status === 400 ? `[QueryAnalysisError] ${message}` : message,
      });
    default:
      if (path.startsWith('/_sim')) return reply.code(status).send({ error: message });
      return reply.code(status).send({ code: status, message });
  }
}
