import { buildSchema, type GraphQLSchema } from 'graphql';
import { PLATFORM_SCHEMA_SDL } from './platform-schema-sdl.js';

let built: GraphQLSchema | undefined;

/**
 * The platform's published GraphQL schema, the part paw uses (`platform-schema.graphql`), built
 * once per process: paw reads the platform's answers against it, and the simulator serves it.
 */
export function platformSchema(): GraphQLSchema {
  built ??= buildSchema(PLATFORM_SCHEMA_SDL);
  return built;
}
