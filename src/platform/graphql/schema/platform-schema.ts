import { buildASTSchema, buildSchema, parse, type GraphQLSchema } from 'graphql';
import { readFileSync } from 'node:fs';
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

/**
 * `published-schema.graphql`, beside this module in src/ and in the compiled dist/ alike
 * (bin/build.mjs copies it): read at run time, never imported, so that its 2 MB of SDL neither
 * reach tsc nor gql.tada.
 */
const PUBLISHED_SDL = new URL('./published-schema.graphql', import.meta.url);

let whole: GraphQLSchema | undefined;

/**
 * The platform's whole published schema (every type, field, argument and enum value), built on
 * first use and then kept for the life of the process: building it costs about a second of CPU,
 * so a process pays it once, and only when something needs more than paw's part.
 */
export function publishedSchema(): GraphQLSchema {
  // Valid as published (the refresh built it): graphql-js's check of the whole would cost as much
  // again on the first validation.
  whole ??= buildASTSchema(parse(readFileSync(PUBLISHED_SDL, 'utf8'), { noLocation: true }), {
    assumeValidSDL: true,
    assumeValid: true,
  });
  return whole;
}
