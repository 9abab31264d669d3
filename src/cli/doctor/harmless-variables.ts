import {
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  Kind,
  typeFromAST,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';

/** An id no object has: a document asked about it finds nothing and changes nothing. */
export const NOBODY = '00000000-0000-4000-8000-000000000000';

/**
 * Variables for one of paw's documents that ask about nothing: each required variable (and
 * each required field of an input) gets {@link NOBODY} for a string or an id, `false` for a
 * flag, 1 for a number, the first word of an enum; optional ones are left out. Sent to the
 * platform, the document is validated and run against an object that does not exist: a
 * mutation finds nothing to change, as the doctor's probes do (job-kind-needs.ts).
 */
export function harmlessVariables(
  schema: GraphQLSchema,
  document: DocumentNode,
): Record<string, unknown> {
  const operation = document.definitions.find(
    (definition): definition is OperationDefinitionNode =>
      definition.kind === Kind.OPERATION_DEFINITION,
  );
  const variables: Record<string, unknown> = {};
  for (const definition of operation?.variableDefinitions ?? []) {
    const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
    if (type === undefined || !isNonNullType(type)) continue;
    variables[definition.variable.name.value] = valueOf(type);
  }
  return variables;
}

function valueOf(type: GraphQLInputType): unknown {
  const nullable = getNullableType(type);
  if (isListType(nullable)) return [valueOf(nullable.ofType)];
  if (isEnumType(nullable)) return nullable.getValues()[0]?.value;
  if (isInputObjectType(nullable)) {
    const value: Record<string, unknown> = {};
    for (const field of Object.values(nullable.getFields())) {
      if (isNonNullType(field.type)) value[field.name] = valueOf(field.type);
    }
    return value;
  }
  if (isScalarType(nullable)) {
    switch (nullable.name) {
      case 'Boolean':
        return false;
      case 'Int':
      case 'Float':
      case 'Long':
        return 1;
      default:
        return NOBODY;
    }
  }
  return null;
}
