import type { SwaggerOptions } from '@fastify/swagger';
import {
  createJsonSchemaTransform,
  createJsonSchemaTransformObject,
} from 'fastify-type-provider-zod';
import { layoutRoute, type RestLayoutName } from './rest-layouts.js';
import { restSchemaRegistry } from './rest-schemas.js';

const jsonSchemaTransform = createJsonSchemaTransform({ schemaRegistry: restSchemaRegistry });
const jsonSchemaTransformObject = createJsonSchemaTransformObject({
  schemaRegistry: restSchemaRegistry,
});

/** Where each layout serves its OpenAPI document (v2's is found only through its docs page). */
export const OPENAPI_DOCUMENT_PATHS: Record<RestLayoutName, string> = {
  default: '/api/rest/openapi.json',
  v2: '/api/rest/v2/reference/openapi.json',
};

/**
 * How the OpenAPI document is generated: by @fastify/swagger from the routes' zod schemas
 * (fastify-type-provider-zod's transforms), the same schemas that validate the requests, with
 * the layout's routes and operationIds.
 */
export function openApiOptions(layout: RestLayoutName): SwaggerOptions {
  // Operations whose body may be left out entirely (`@fastify/swagger` marks every body required).
  const optionalBodies = new Set(
    (['takeSnapshot', 'pauseSlaDomain', 'resumeSlaDomain'] as const).map(
      (operation) => layoutRoute(layout, operation).operationId,
    ),
  );
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Task-based REST interface (paw simulator)',
        description:
          'The beta task-based REST interface as the paw simulator serves it (docs/platform-model.md). ' +
          'Every response is the envelope {data, error, metadata}; 401, 429, 502 and 503 come from the ' +
          'gateway in its own formats. Authenticate with `Authorization: Bearer <access token>` from ' +
          'POST /api/client_token.',
        version: 'beta',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: (documentObject) => {
      const document = jsonSchemaTransformObject(documentObject);
      const paths = (document as { paths?: Record<string, Record<string, unknown>> }).paths ?? {};
      for (const pathItem of Object.values(paths)) {
        for (const operation of Object.values(pathItem)) {
          const { operationId, requestBody } = operation as {
            operationId?: string;
            requestBody?: { required?: boolean };
          };
          if (
            operationId !== undefined &&
            optionalBodies.has(operationId) &&
            requestBody !== undefined
          ) {
            requestBody.required = false;
          }
        }
      }
      return document;
    },
  };
}
