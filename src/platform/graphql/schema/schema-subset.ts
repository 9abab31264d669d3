import {
  buildASTSchema,
  buildClientSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isUnionType,
  Kind,
  parse,
  print,
  printSchema,
  specifiedScalarTypes,
  type DefinitionNode,
  type DocumentNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type IntrospectionQuery,
  type TypeDefinitionNode,
} from 'graphql';

/** A problem with the published schema or the field list: the refresh stops on it. */
export class SchemaSubsetError extends Error {
  override readonly name = 'SchemaSubsetError';
}

/**
 * A published schema read from what a user has: SDL (the platform's reference, or a saved
 * `printSchema`), or the JSON of an introspection query (`{ data: { __schema } }` or
 * `{ __schema }`). Descriptions and directives are dropped, so SDL and introspection of the same
 * schema give the same subset.
 */
export function readPublishedSchema(text: string): GraphQLSchema {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{')) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new SchemaSubsetError(
        `the file starts like JSON but is not JSON (${(error as Error).message}): give an SDL file or the JSON an introspection query answered`,
      );
    }
    const root = (json as { data?: unknown }).data ?? json;
    if (typeof root !== 'object' || root === null || !('__schema' in root)) {
      throw new SchemaSubsetError(
        'the JSON has no __schema: save the whole answer of an introspection query (it has data.__schema)',
      );
    }
    return buildClientSchema(root as IntrospectionQuery, { assumeValid: true });
  }
  return buildASTSchema(parse(text, { noLocation: true }), { assumeValidSDL: true });
}

/**
 * The part of `published` that `fields` names (type → field names): each listed field with all
 * its arguments; every input type, enum and scalar an argument or a listed field reaches, whole;
 * each object, interface or union a listed field returns, with only its listed fields; and the
 * `enums` named, whole. The result
 * is SDL copied from the published definitions, sorted by name, and is itself a valid schema.
 */
export function schemaSubset(
  published: GraphQLSchema,
  fields: Readonly<Record<string, readonly string[]>>,
  enums: readonly string[] = [],
): string {
  const keptFields = new Map<string, Set<string>>();
  const keptTypes = new Set<string>();
  const problems: string[] = [];

  const typeNamed = (name: string): GraphQLNamedType | undefined => published.getType(name);

  for (const [typeName, names] of Object.entries(fields)) {
    const type = typeNamed(typeName);
    if (type === undefined) {
      problems.push(`the published schema has no type ${typeName}`);
      continue;
    }
    if (!isObjectType(type) && !isInterfaceType(type)) {
      problems.push(`${typeName} is not an object type or an interface: list only their fields`);
      continue;
    }
    const published = type.getFields();
    for (const name of names) {
      if (!(name in published))
        problems.push(`the published type ${typeName} has no field ${name}`);
    }
    keptFields.set(typeName, new Set(names));
  }
  // An implementation carries its interface's listed fields (a schema requires it).
  for (const [typeName, names] of keptFields) {
    const type = typeNamed(typeName);
    if (!isObjectType(type) && !isInterfaceType(type)) continue;
    for (const parent of type.getInterfaces()) {
      for (const name of keptFields.get(parent.name) ?? []) names.add(name);
    }
  }

  const reach = (type: GraphQLNamedType, from: string): void => {
    if (keptTypes.has(type.name)) return;
    if (isObjectType(type) || isInterfaceType(type)) {
      if (!keptFields.has(type.name)) {
        problems.push(
          `${from} returns ${type.name}, of which no field is listed: list the ones served`,
        );
        return;
      }
      keptTypes.add(type.name);
      const all = type.getFields();
      for (const name of keptFields.get(type.name) ?? []) {
        const field = all[name];
        if (field === undefined) continue;
        reach(getNamedType(field.type), `${type.name}.${name}`);
        for (const arg of field.args)
          reach(getNamedType(arg.type), `${type.name}.${name}(${arg.name})`);
      }
      if (isInterfaceType(type)) {
        const implementations = published
          .getPossibleTypes(type)
          .filter((candidate) => keptFields.has(candidate.name));
        if (implementations.length === 0) {
          problems.push(
            `the interface ${type.name} is used but none of its implementations is listed`,
          );
        }
        for (const implementation of implementations) reach(implementation, type.name);
      }
      return;
    }
    if (isUnionType(type)) {
      problems.push(
        `${from} returns the union ${type.name}: unions are not supported by the refresh`,
      );
      return;
    }
    keptTypes.add(type.name);
    if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        reach(getNamedType(field.type), `${type.name}.${field.name}`);
      }
    }
  };
  for (const rootName of ['Query', 'Mutation']) {
    const root = typeNamed(rootName);
    if (root !== undefined && keptFields.has(rootName)) reach(root, rootName);
  }
  for (const enumName of enums) {
    const type = typeNamed(enumName);
    if (isEnumType(type)) keptTypes.add(type.name);
    else problems.push(`the published schema has no enum ${enumName}`);
  }
  for (const typeName of keptFields.keys()) {
    if (!keptTypes.has(typeName)) {
      problems.push(
        `${typeName} is listed but nothing listed returns it: remove it or list a field that does`,
      );
    }
  }
  if (problems.length > 0) throw new SchemaSubsetError(problems.join('\n'));

  const builtIn = new Set(specifiedScalarTypes.map((scalar) => scalar.name));
  const definitions = parse(printSchema(published), { noLocation: true })
    .definitions.filter(isTypeDefinition)
    .filter(
      (definition) => keptTypes.has(definition.name.value) && !builtIn.has(definition.name.value),
    )
    .map((definition) => trimmed(definition, keptFields, keptTypes))
    .sort((a, b) => (a.name.value < b.name.value ? -1 : a.name.value > b.name.value ? 1 : 0));
  const document: DocumentNode = { kind: Kind.DOCUMENT, definitions };
  const sdl = `${print(document)}\n`;
  // What the refresh writes must itself be a schema (the simulator builds its endpoint from it).
  buildASTSchema(parse(sdl));
  return sdl;
}

function isTypeDefinition(definition: DefinitionNode): definition is TypeDefinitionNode {
  return (
    definition.kind === Kind.OBJECT_TYPE_DEFINITION ||
    definition.kind === Kind.INTERFACE_TYPE_DEFINITION ||
    definition.kind === Kind.INPUT_OBJECT_TYPE_DEFINITION ||
    definition.kind === Kind.ENUM_TYPE_DEFINITION ||
    definition.kind === Kind.SCALAR_TYPE_DEFINITION ||
    definition.kind === Kind.UNION_TYPE_DEFINITION
  );
}

/** A definition as published, without descriptions or directives, and only its kept fields. */
function trimmed(
  definition: TypeDefinitionNode,
  keptFields: ReadonlyMap<string, ReadonlySet<string>>,
  keptTypes: ReadonlySet<string>,
): TypeDefinitionNode {
  const bare = bareOf(definition);
  switch (bare.kind) {
    case Kind.OBJECT_TYPE_DEFINITION:
    case Kind.INTERFACE_TYPE_DEFINITION: {
      const keep = keptFields.get(bare.name.value) ?? new Set<string>();
      return {
        ...bare,
        interfaces: (bare.interfaces ?? []).filter((parent) => keptTypes.has(parent.name.value)),
        fields: (bare.fields ?? [])
          .filter((field) => keep.has(field.name.value))
          .map((field) => ({ ...bareOf(field), arguments: (field.arguments ?? []).map(bareOf) }))
          .sort(byName),
      };
    }
    case Kind.INPUT_OBJECT_TYPE_DEFINITION:
      return { ...bare, fields: (bare.fields ?? []).map(bareOf).sort(byName) };
    case Kind.ENUM_TYPE_DEFINITION:
      return { ...bare, values: (bare.values ?? []).map(bareOf).sort(byName) };
    default:
      return bare;
  }
}

/** A node without its description and directives. */
function bareOf<T extends { readonly description?: unknown; readonly directives?: unknown }>(
  node: T,
): T {
  const { description: _description, directives: _directives, ...rest } = node;
  return rest as T;
}

function byName(a: { name: { value: string } }, b: { name: { value: string } }): number {
  return a.name.value < b.name.value ? -1 : a.name.value > b.name.value ? 1 : 0;
}
