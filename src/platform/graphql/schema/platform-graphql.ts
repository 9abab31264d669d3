import type { initGraphQLTada } from 'gql.tada';
import { parse, type DocumentNode } from 'graphql';
import type { introspection } from './platform-schema-introspection.js';

/**
 * How the platform's custom scalars arrive in JSON: `Long` may come as a number or, past 2^53,
 * as a string.
 */
interface PlatformScalars {
  readonly DateTime: string;
  readonly UUID: string;
  readonly Long: number | string;
}

type PlatformGraphql = ReturnType<
  typeof initGraphQLTada<{
    introspection: introspection;
    scalars: PlatformScalars;
    disableMasking: true;
  }>
>;

/**
 * A document of the platform's GraphQL interface, typed by gql.tada from
 * `platform-schema.graphql`: its result and variables types come from the schema, and
 * `npm run typecheck` (`gql.tada check`) refuses a field, argument or type the schema lacks,
 * naming the document. At run time it is graphql-js's parse of the text (gql.tada is a build
 * tool here, not a dependency of the running process).
 */
export const graphql = ((source: string): DocumentNode =>
  parse(source, { noLocation: true })) as unknown as PlatformGraphql;
