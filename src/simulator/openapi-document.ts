import type { SwaggerOptions } from '@fastify/swagger';
import {
  createJsonSchemaTransform,
  createJsonSchemaTransformObject,
} from 'fastify-type-provider-zod';
import { restSchemaRegistry } from './rest-schemas.js';

const jsonSchemaTransform = createJsonSchemaTransform({ schemaRegistry: restSchemaRegistry });
const jsonSchemaTransformObject = createJsonSchemaTransformObject({
  schemaRegistry: restSchemaRegistry,
});

/** Operations whose body may be left out entirely (`@fastify/swagger` marks every body required). */
const OPTIONAL_BODIES = new Set(['takeSnapshot', 'pauseSlaDomain', 'resumeSlaDomain']);

/**
 * How `/api/rest/openapi.json` is generated: by @fastify/swagger from the routes' zod schemas
 * (fastify-type-provider-zod's transforms), the same schemas that validate the requests.
 */
export const openApiOptions: SwaggerOptions = {
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
          OPTIONAL_BODIES.has(operationId) &&
          requestBody !== undefined
        ) {
          requestBody.required = false;
        }
      }
    }
    return document;
  },
};
