import type { initGraphQLTada } from 'gql.tada';
import { Kind, parse, type DefinitionNode, type DocumentNode } from 'graphql';
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
 * naming the document. At run time it is graphql-js's parse of the text, with the definitions of
 * the fragments it uses appended, as gql.tada's own `graphql()` does (gql.tada is a build tool
 * here, not a dependency of the running process).
 */
export const graphql = ((source: string, fragments: readonly DocumentNode[] = []): DocumentNode => {
  const document = parse(source, { noLocation: true });
  const names = new Set<string>();
  const definitions: DefinitionNode[] = [...document.definitions];
  for (const definition of [...document.definitions, ...fragments.flatMap((f) => f.definitions)]) {
    if (definition.kind !== Kind.FRAGMENT_DEFINITION) continue;
    if (names.has(definition.name.value)) continue;
    names.add(definition.name.value);
    if (!document.definitions.includes(definition)) definitions.push(definition);
  }
  return { ...document, definitions };
}) as unknown as PlatformGraphql;
