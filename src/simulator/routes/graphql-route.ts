import { GraphQLError, execute, parse, validate, type DocumentNode } from 'graphql';
import type { GraphqlContext } from '../graphql/graphql-context.js';
import { rootResolvers } from '../graphql/resolvers.js';
import { platformSchema } from '../../platform/graphql/schema/platform-schema.js';
import { operation, type ZodApp } from '../route-config.js';
import type { SimulatorState } from '../simulator-state.js';

/** How the platform answers a query it cannot run at all: HTTP 400, no GraphQL envelope. */
function queryAnalysisError(message: string): { code: 400; message: string } {
  return { code: 400, message: `[QueryAnalysisError] ${message}` };
}

/**
 * `POST /api/graphql`: parsed, validated and executed by graphql-js against the platform's
 * published schema (the part paw uses, `platformSchema()`), so it serves no type, field or enum
 * value the platform does not publish, and answers introspection like any query. A document
 * that does not parse or validate, or whose variables do not coerce, answers 400; field errors
 * answer 200 with `errors[]`.
 */
export function registerGraphqlRoute(app: ZodApp, state: SimulatorState): void {
  app.route({
    method: 'POST',
    url: '/api/graphql',
    config: operation('graphql', 'graphql', { bearerAuth: true, rateLimited: true }),
    schema: { hide: true },
    handler: async (request, reply) => {
      const body = request.body;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        return reply
          .code(400)
          .send(queryAnalysisError('the body must be a JSON object with query and variables'));
      }
      const { query, variables, operationName } = body as Record<string, unknown>;
      if (typeof query !== 'string' || query.trim() === '') {
        return reply.code(400).send(queryAnalysisError('query must be a non-empty string'));
      }
      if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) {
        return reply.code(400).send(queryAnalysisError('variables must be an object'));
      }
      if (operationName != null && typeof operationName !== 'string') {
        return reply.code(400).send(queryAnalysisError('operationName must be a string'));
      }
      let document: DocumentNode;
      try {
        document = parse(query);
      } catch (error) {
        return reply
          .code(400)
          .send(queryAnalysisError(error instanceof GraphQLError ? error.message : String(error)));
      }
      const schema = platformSchema();
      const problems = validate(schema, document);
      if (problems.length > 0) {
        return reply
          .code(400)
          .send(queryAnalysisError(problems.map((problem) => problem.message).join('; ')));
      }
      if (request.principal === null)
        throw new Error('the gateway let an unauthenticated request through');
      const contextValue: GraphqlContext = { state, principal: request.principal };
      const result = await execute({
        schema,
        document,
        rootValue: rootResolvers,
        contextValue,
        variableValues: (variables as Record<string, unknown> | null | undefined) ?? undefined,
        operationName: operationName ?? undefined,
      });
      // No `data` at all means the request itself was wrong (variables, operation name).
      if (!('data' in result) && result.errors !== undefined) {
        return reply
          .code(400)
          .send(queryAnalysisError(result.errors.map((error) => error.message).join('; ')));
      }
      return reply.code(200).send(result);
    },
  });
}
