import {
  GraphQLError,
  execute,
  parse,
  validate,
  visit,
  BREAK,
  type DocumentNode,
  type GraphQLSchema,
} from 'graphql';
import { randomBytes } from 'node:crypto';
import { fillingFieldResolver, fillingTypeResolver } from '../graphql/filled-fields.js';
import type { GraphqlContext } from '../graphql/graphql-context.js';
import { rootResolvers } from '../graphql/resolvers.js';
import { WithheldFields } from '../graphql/withheld-fields.js';
import { platformSchema, publishedSchema } from '../../platform/graphql/schema/platform-schema.js';
import { operation, type ZodApp } from '../route-config.js';
import type { SimulatorState } from '../simulator-state.js';

const URI = '/api/graphql';

/**
 * How the platform refuses a document it will not run (docs/simulator.md, "Answer shapes"):
 * HTTP 200, and not a GraphQL result but the gateway's body, its message starting
 * `[QueryAnalysisError]`.
 */
function refusal(message: string) {
  return {
    code: 400,
    uri: URI,
    traceSpan: {
      traceId: randomBytes(16).toString('base64'),
      operation: URI,
      spanId: randomBytes(8).toString('base64'),
    },
    message: `[QueryAnalysisError] ${message}`,
  };
}

/**
 * A graphql-js validation error as the platform words it: names in single quotes, each
 * violation followed by where it is (`(line 6, column 7)`).
 */
function violation(error: GraphQLError): string {
  const where = error.locations?.[0];
  const sentence = error.message.replace(/"/g, "'");
  return where === undefined
    ? sentence
    : `${sentence} (line ${where.line}, column ${where.column})`;
}

/** Whether the document asks about the schema itself (`__schema`, `__type`). */
function asksForIntrospection(document: DocumentNode): boolean {
  let asks = false;
  visit(document, {
    Field(node) {
      if (node.name.value === '__schema' || node.name.value === '__type') {
        asks = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return asks;
}

/**
 * The schema a document runs against, and what it violates of it. Every document runs against
 * the whole published schema, but paw's part (`platformSchema()`, a hundred types) is the same
 * schema for a document it validates, answered the same way by the same resolvers: a document
 * that stays within it runs there, so a process whose simulators only ever see paw's documents
 * (the test suite) never builds the whole one (a second of CPU). Introspection always sees the
 * whole schema.
 */
function schemaFor(document: DocumentNode): {
  schema: GraphQLSchema;
  problems: readonly GraphQLError[];
} {
  if (!asksForIntrospection(document)) {
    const part = platformSchema();
    if (validate(part, document).length === 0) return { schema: part, problems: [] };
  }
  const whole = publishedSchema();
  return { schema: whole, problems: validate(whole, document) };
}

/**
 * `POST /api/graphql`: parsed, validated and executed by graphql-js against the platform's whole
 * published schema, so it serves every type, field, argument and enum value the platform
 * publishes and nothing else, and answers introspection like any query. The world's resolvers
 * answer what it models; every other field gets a deterministic value of its type
 * (graphql/filled-fields.ts). A document that does not parse or validate, or whose variables do
 * not coerce, is refused the platform's way (HTTP 200, `{code: 400, uri, traceSpan, message}`);
 * field errors answer 200 with `errors[]` beside the data.
 */
export function registerGraphqlRoute(app: ZodApp, state: SimulatorState): void {
  app.route({
    method: 'POST',
    url: URI,
    config: operation('graphql', 'graphql', { bearerAuth: true, rateLimited: true }),
    schema: { hide: true },
    handler: async (request, reply) => {
      const refuse = (message: string) => reply.code(200).send(refusal(message));
      const body = request.body;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        return refuse('the body must be a JSON object with query and variables');
      }
      const { query, variables, operationName } = body as Record<string, unknown>;
      if (typeof query !== 'string' || query.trim() === '') {
        return refuse('query must be a non-empty string');
      }
      if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) {
        return refuse('variables must be an object');
      }
      if (operationName != null && typeof operationName !== 'string') {
        return refuse('operationName must be a string');
      }
      let document: DocumentNode;
      try {
        document = parse(query);
      } catch (error) {
        return refuse(
          `Invalid Syntax: ${error instanceof GraphQLError ? violation(error) : String(error)}`,
        );
      }
      const { schema, problems } = schemaFor(document);
      if (problems.length > 0) {
        return refuse(
          `Query does not pass validation. Violations:\n\n${problems.map(violation).join('\n\n')}`,
        );
      }
      if (request.principal === null)
        throw new Error('the gateway let an unauthenticated request through');
      const withheld = new WithheldFields(state.faults.withheldFields());
      const contextValue: GraphqlContext = { state, principal: request.principal, withheld };
      const result = await execute({
        schema,
        document,
        rootValue: rootResolvers,
        contextValue,
        variableValues: (variables as Record<string, unknown> | null | undefined) ?? undefined,
        operationName: operationName ?? undefined,
        fieldResolver: fillingFieldResolver,
        typeResolver: fillingTypeResolver,
      });
      // No `data` at all means the request itself was wrong (variables, operation name).
      if (!('data' in result) && result.errors !== undefined) {
        return refuse(result.errors.map(violation).join('; '));
      }
      return reply.code(200).send(withheld.apply(result));
    },
  });
}
