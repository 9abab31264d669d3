import {
  getNullableType,
  isAbstractType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLFieldResolver,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  type GraphQLTypeResolver,
} from 'graphql';
import { createHash } from 'node:crypto';
import type { GraphqlContext } from './graphql-context.js';

/**
 * What the simulator answers for the parts of the published schema its world does not model.
 *
 * graphql-js runs every field without a resolver of its own through `fieldResolver`, and every
 * abstract type through `typeResolver` (execute's options): the world's resolvers (the root value)
 * and views (plain objects, see graphql-views.ts) answer what they hold; any other field gets a
 * value of its declared type, derived from a hash of the object's key and the field's name, so
 * the same object answers the same field the same way every time, in every simulator. Nothing is
 * stored: a filled object is only its key.
 *
 * Chosen over @graphql-tools/mock (`addMocksToSchema` with `preserveResolvers`): that maps the
 * whole schema into a copy (about 7,700 types, built again on top of the published one), keeps
 * every generated value in its MockStore for the life of the simulator, and draws random values
 * unless told otherwise; these two execute options do the same over the schema as published,
 * with the world's resolvers left as they are.
 */

/** The key of an object the simulator filled in: where it hangs (`VsphereVm:<id>.cluster`). */
const FILLED = Symbol('filled object key');

interface Filled {
  readonly [FILLED]: string;
  readonly __typename?: string;
}

/** The fixed instant filled DateTimes count back from: the same answer in every run. */
const DATE_BASE = Date.UTC(2026, 0, 1);
const DAY_MS = 86_400_000;

/** 48 bits of the hash of `key`, as a non-negative integer (exact in a double). */
function hashOf(key: string): number {
  return Number.parseInt(createHash('sha1').update(key).digest('hex').slice(0, 12), 16);
}

function uuidOf(key: string): string {
  const hex = createHash('sha1').update(key).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** What names an object of the world or a filled one: its type and id (or its key). */
function keyOf(source: unknown, typeName: string): string {
  if (typeof source !== 'object' || source === null) return typeName;
  const filled = (source as Partial<Filled>)[FILLED];
  if (filled !== undefined) return filled;
  const record = source as Record<string, unknown>;
  const id = record.id ?? record.fid ?? record.clientId ?? record.name;
  return typeof id === 'string' || typeof id === 'number' ? `${typeName}:${String(id)}` : typeName;
}

/** A scalar's value: each of the schema's scalars in the form its clients parse. */
function scalarValue(typeName: string, key: string, fieldName: string): unknown {
  const hash = hashOf(key);
  switch (typeName) {
    case 'Boolean':
      return hash % 2 === 0;
    case 'Int':
      return hash % 100;
    case 'Long':
      return hash % 1_000_000;
    case 'Float':
      return (hash % 10_000) / 100;
    case 'UUID':
      return uuidOf(key);
    case 'ID':
      return uuidOf(key);
    case 'DateTime':
      return new Date(DATE_BASE - (hash % (90 * DAY_MS))).toISOString();
    case 'LocalTime': {
      const seconds = hash % 86_400;
      const two = (n: number) => String(n).padStart(2, '0');
      return `${two(Math.floor(seconds / 3600))}:${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}`;
    }
    case 'Timezone':
      return 'UTC';
    case 'URL':
      return `https://filled.invalid/${hash.toString(16)}`;
    case 'Void':
      return null;
    default:
      // String, and the published schema's few other scalars (serialized as they are).
      return `${fieldName}-${hash.toString(16).slice(0, 8)}`;
  }
}

/** An empty connection, as the platform answers for an account with nothing of the kind. */
function emptyConnection(key: string) {
  return {
    [FILLED]: key,
    count: 0,
    edges: [],
    nodes: [],
    pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: '', endCursor: '' },
  };
}

/** A type with `pageInfo` and `nodes` or `edges`: a Relay connection. */
function isConnection(type: GraphQLOutputType): boolean {
  if (!isObjectType(type)) return false;
  const fields = type.getFields();
  return 'pageInfo' in fields && ('nodes' in fields || 'edges' in fields);
}

/**
 * A value of `type` for the field at `key`. Lists are empty (their items would be objects of
 * nothing) and connections empty; an object is only its key, its fields filled when selected;
 * an interface or a union picks one of its implementations by the hash.
 */
function filledValue(type: GraphQLOutputType, key: string, info: GraphQLResolveInfo): unknown {
  const named = getNullableType(type);
  if (isListType(named)) return [];
  if (isScalarType(named)) return scalarValue(named.name, key, info.fieldName);
  if (isEnumType(named)) {
    const values = named.getValues();
    return values[hashOf(key) % values.length]?.value ?? null;
  }
  if (isConnection(named)) return emptyConnection(key);
  if (isAbstractType(named)) {
    const implementations = info.schema.getPossibleTypes(named);
    const picked = implementations[hashOf(key) % implementations.length];
    return picked === undefined ? null : { [FILLED]: key, __typename: picked.name };
  }
  return { [FILLED]: key };
}

/**
 * A root field the world does not serve answers as the platform does for an empty account: an
 * empty connection or list, null for a nullable object, a filled value where null is not allowed
 * (a mutation's reply, a count).
 */
function emptyAccountValue(info: GraphQLResolveInfo): unknown {
  const key = `${info.parentType.name}.${info.fieldName}`;
  const type = info.returnType;
  const named = getNullableType(type);
  if (!isNonNullType(type) && !isScalarType(named) && !isEnumType(named)) return null;
  return filledValue(type, key, info);
}

/**
 * The field resolver of every field without its own: a property of the source object (called
 * when it is a function, as graphql-js's default does), else a filled value. A field the
 * simulator withholds (behind a feature flag, see `withheld-fields.ts`) is noted for the answer.
 */
export const fillingFieldResolver: GraphQLFieldResolver<unknown, GraphqlContext> = (
  source,
  args,
  context,
  info,
) => {
  context.withheld.note(info);
  if (typeof source === 'object' && source !== null) {
    const value = (source as Record<string, unknown>)[info.fieldName];
    if (typeof value === 'function') {
      return (value as (...a: unknown[]) => unknown).call(source, args, context, info);
    }
    if (value !== undefined) return value;
  }
  const roots = [info.schema.getQueryType(), info.schema.getMutationType()];
  if (roots.includes(info.parentType)) return emptyAccountValue(info);
  return filledValue(
    info.returnType,
    `${keyOf(source, info.parentType.name)}.${info.fieldName}`,
    info,
  );
};

/** The implementation a value names in `__typename` (world views and filled objects do). */
export const fillingTypeResolver: GraphQLTypeResolver<unknown, GraphqlContext> = (value) => {
  const typename = (value as { __typename?: unknown } | null)?.__typename;
  return typeof typename === 'string' ? typename : undefined;
};
