import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isScalarType,
  isUnionType,
  specifiedScalarTypes,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLNamedType,
  type GraphQLSchema,
} from 'graphql';

const BUILT_IN = new Set(specifiedScalarTypes.map((scalar) => scalar.name));

/**
 * Every way `served` differs from `published`, one line each: a type, field, argument, input
 * field, enum value or implementation one has and the other lacks, or declares differently
 * (kind, type and nullability). Descriptions, directives and built-in scalars are not compared.
 * Empty when the two serve the same schema. Free of Vitest, so it runs by hand too.
 */
export function schemaDifferences(served: GraphQLSchema, published: GraphQLSchema): string[] {
  const differences: string[] = [];
  const named = (schema: GraphQLSchema): Map<string, GraphQLNamedType> =>
    new Map(
      Object.entries(schema.getTypeMap()).filter(
        ([name]) => !name.startsWith('__') && !BUILT_IN.has(name),
      ),
    );
  const servedTypes = named(served);
  const publishedTypes = named(published);
  for (const name of union(servedTypes.keys(), publishedTypes.keys())) {
    const mine = servedTypes.get(name);
    const theirs = publishedTypes.get(name);
    if (mine === undefined) differences.push(`${name}: published, not served`);
    else if (theirs === undefined) differences.push(`${name}: served, not published`);
    else differences.push(...typeDifferences(mine, theirs));
  }
  const roots = (schema: GraphQLSchema) => [
    schema.getQueryType()?.name,
    schema.getMutationType()?.name,
    schema.getSubscriptionType()?.name,
  ];
  const [mine, theirs] = [roots(served), roots(published)];
  ['query', 'mutation', 'subscription'].forEach((operation, index) => {
    if (mine[index] !== theirs[index]) {
      differences.push(
        `the ${operation} root: served ${String(mine[index])}, published ${String(theirs[index])}`,
      );
    }
  });
  return differences;
}

function typeDifferences(served: GraphQLNamedType, published: GraphQLNamedType): string[] {
  const name = served.name;
  const kind = kindOf(served);
  if (kind !== kindOf(published)) {
    return [`${name}: served as ${kind}, published as ${kindOf(published)}`];
  }
  if (isEnumType(served) && isEnumType(published)) {
    return setDifferences(
      `${name} value`,
      served.getValues().map((value) => value.name),
      published.getValues().map((value) => value.name),
    );
  }
  if (isUnionType(served) && isUnionType(published)) {
    return setDifferences(
      `${name} member`,
      served.getTypes().map((member) => member.name),
      published.getTypes().map((member) => member.name),
    );
  }
  if (isInputObjectType(served) && isInputObjectType(published)) {
    return fieldDifferences(name, served.getFields(), published.getFields());
  }
  if (
    (isObjectType(served) || isInterfaceType(served)) &&
    (isObjectType(published) || isInterfaceType(published))
  ) {
    return [
      ...setDifferences(
        `${name} implements`,
        served.getInterfaces().map((parent) => parent.name),
        published.getInterfaces().map((parent) => parent.name),
      ),
      ...fieldDifferences(name, served.getFields(), published.getFields()),
    ];
  }
  return [];
}

type AnyField = GraphQLField<unknown, unknown> | GraphQLInputField | GraphQLArgument;

function fieldDifferences(
  owner: string,
  served: Readonly<Record<string, AnyField>>,
  published: Readonly<Record<string, AnyField>>,
): string[] {
  const differences: string[] = [];
  for (const name of union(Object.keys(served), Object.keys(published))) {
    const mine = served[name];
    const theirs = published[name];
    const where = `${owner}.${name}`;
    if (mine === undefined) differences.push(`${where}: published, not served`);
    else if (theirs === undefined) differences.push(`${where}: served, not published`);
    else {
      if (String(mine.type) !== String(theirs.type)) {
        differences.push(
          `${where}: served as ${String(mine.type)}, published as ${String(theirs.type)}`,
        );
      }
      if ('args' in mine && 'args' in theirs) {
        const args = (field: GraphQLField<unknown, unknown>) =>
          Object.fromEntries(field.args.map((arg) => [arg.name, arg]));
        differences.push(...fieldDifferences(`${where}()`, args(mine), args(theirs)));
      }
    }
  }
  return differences;
}

function setDifferences(what: string, served: readonly string[], published: readonly string[]) {
  const mine = new Set(served);
  const theirs = new Set(published);
  return [
    ...[...theirs]
      .filter((name) => !mine.has(name))
      .map((name) => `${what} ${name}: published, not served`),
    ...[...mine]
      .filter((name) => !theirs.has(name))
      .map((name) => `${what} ${name}: served, not published`),
  ];
}

function kindOf(type: GraphQLNamedType): string {
  if (isObjectType(type)) return 'an object type';
  if (isInterfaceType(type)) return 'an interface';
  if (isUnionType(type)) return 'a union';
  if (isEnumType(type)) return 'an enum';
  if (isInputObjectType(type)) return 'an input type';
  return isScalarType(type) ? 'a scalar' : 'something else';
}

function union(...lists: Iterable<string>[]): string[] {
  return [...new Set(lists.flatMap((list) => [...list]))].sort();
}
