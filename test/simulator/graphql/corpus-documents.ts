import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Kind,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  parse,
  typeFromAST,
  validate,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';

/**
 * Where the corpus is kept: documents written for this project in the shape the platform's real
 * clients send, one folder per area (see its README.md).
 */
const CORPUS = fileURLToPath(new URL('../graphql-corpus/', import.meta.url));

/** One document of the corpus, as read and judged against the published schema. */
export interface CorpusDocument {
  /** Its path under the corpus: `<area>/<name>.graphql`. */
  readonly path: string;
  /** The folder it is kept in: the part of the platform it exercises. */
  readonly area: string;
  /** Why it cannot be sent (does not parse, is not executable, does not validate), if so. */
  readonly problem?: string;
  readonly document?: DocumentNode;
}

function files(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return files(path);
    return /\.(graphql|gql)$/.test(entry.name) ? [path] : [];
  });
}

/** Every document of the corpus, judged against `schema`, in path order. */
export function readCorpus(schema: GraphQLSchema): CorpusDocument[] {
  return files(CORPUS)
    .map((file) => relative(CORPUS, file))
    .sort()
    .map((path): CorpusDocument => {
      const area = path.split('/')[0] ?? '';
      let document: DocumentNode;
      try {
        document = parse(readFileSync(join(CORPUS, path), 'utf8'));
      } catch (error) {
        return { path, area, problem: `does not parse: ${(error as Error).message}` };
      }
      const executable = document.definitions.every(
        (definition) =>
          definition.kind === Kind.OPERATION_DEFINITION ||
          definition.kind === Kind.FRAGMENT_DEFINITION,
      );
      if (!executable) return { path, area, problem: 'not an executable document' };
      const violations = validate(schema, document);
      if (violations.length > 0) {
        return { path, area, problem: `invalid: ${violations[0]?.message ?? ''}` };
      }
      return { path, area, document };
    });
}

/** The operations of a document. */
export function operationsOf(document: DocumentNode): OperationDefinitionNode[] {
  return document.definitions.filter(
    (definition): definition is OperationDefinitionNode =>
      definition.kind === Kind.OPERATION_DEFINITION,
  );
}

/** A plausible value of a scalar the published schema declares. */
function scalarValue(name: string): unknown {
  switch (name) {
    case 'Int':
    case 'Long':
    case 'Float':
      return 1;
    case 'Boolean':
      return false;
    case 'UUID':
    case 'ID':
      return '00000000-0000-4000-8000-000000000001';
    case 'DateTime':
      return '2026-01-01T00:00:00.000Z';
    case 'URL':
      return 'https://example.com/';
    default:
      return 'corpus';
  }
}

/**
 * A value of `type` as a client would send it: required input fields only (each given one),
 * one item in a list, an enum's first value. Variables a document lets be null are left out.
 */
function inputValue(type: GraphQLInputType, depth = 0): unknown {
  if (isNonNullType(type)) return inputValue(type.ofType, depth);
  if (isListType(type)) return [inputValue(type.ofType, depth)];
  const named = getNamedType(type);
  if (isEnumType(named)) return named.getValues()[0]?.value;
  if (isInputObjectType(named)) {
    if (depth > 8) return {};
    const value: Record<string, unknown> = {};
    for (const field of Object.values(named.getFields())) {
      if (isNonNullType(field.type) && field.defaultValue === undefined) {
        value[field.name] = inputValue(field.type, depth + 1);
      }
    }
    return value;
  }
  return scalarValue(named.name);
}

/**
 * The variables an operation requires, each given a value of its type; a variable named in
 * `known` (an id of the simulator's world, by the name the corpus gives it) is given that value
 * instead, so the document reaches a real object rather than its not-found answer.
 */
export function variablesFor(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  known: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    if (name in known) {
      variables[name] = known[name];
      continue;
    }
    const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
    if (type === undefined || !isNonNullType(type) || definition.defaultValue !== undefined) {
      continue;
    }
    variables[name] = inputValue(type);
  }
  return variables;
}
