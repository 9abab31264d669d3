import {
  getNullableType,
  isEnumType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  OperationTypeNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

/** A row of a list the platform answered that paw could not use, and why (no value in it). */
export interface SkippedRow {
  /** Where in the answer, e.g. `snappableConnection.nodes[3]`. */
  readonly path: string;
  readonly problem: string;
}

/** A field the platform withheld (null, with a 403 error naming its path), as the decoder met it. */
export interface WithheldField {
  /** Where in the answer, e.g. `slaDomains.nodes[3].protectedObjectCount`. */
  readonly path: string;
  /** The field as `Type.field`: the type the document selects it on. */
  readonly field: string;
}

/** A GraphQL error's `path` as the decoder writes paths: `slaDomains.nodes[3].protectedObjectCount`. */
export function answerPath(path: readonly (string | number)[]): string {
  return path
    .map((step, index) =>
      typeof step === 'number' ? `[${step}]` : index === 0 ? step : `.${step}`,
    )
    .join('');
}

/** Where an answer does not fit its document and no row can be dropped to make it fit. */
export class AnswerMismatch extends Error {
  override readonly name = 'AnswerMismatch';
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
  }
}

/**
 * Reads `data` as the answer to `document` under `schema`: what the document selects, with the
 * types and nullability the schema publishes. A field the schema says is never null and is, a
 * scalar of the wrong kind, or an object that is not one, is a mismatch; inside a list it costs
 * only that row, which is dropped and reported (one odd row never fails a page), elsewhere it
 * fails the answer. Enum values are taken as any string: the platform may add values, and paw's
 * vocabulary decides what a word means. Messages name paths and types, never a value (answers
 * carry secrets). A field at one of the `withheld` paths (see answerPath) may be null whatever
 * the schema says: the platform withheld it, and it is returned in `withheld` with its type.
 */
export function decodeAnswer(
  schema: GraphQLSchema,
  document: DocumentNode,
  data: unknown,
  withheldPaths: ReadonlySet<string> = new Set(),
): {
  readonly data: unknown;
  readonly skipped: readonly SkippedRow[];
  readonly withheld: readonly WithheldField[];
} {
  const operation = document.definitions.find(
    (definition): definition is OperationDefinitionNode =>
      definition.kind === Kind.OPERATION_DEFINITION,
  );
  if (operation === undefined) throw new AnswerMismatch('(document)', 'has no operation');
  const root =
    operation.operation === OperationTypeNode.MUTATION
      ? schema.getMutationType()
      : schema.getQueryType();
  if (root == null)
    throw new AnswerMismatch('(document)', `the schema has no ${operation.operation} type`);
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION)
      fragments.set(definition.name.value, definition);
  }
  const reader = new AnswerReader(schema, fragments, withheldPaths);
  const decoded = reader.object(root, operation.selectionSet, data, '');
  return { data: decoded, skipped: reader.skipped, withheld: reader.withheld };
}

class AnswerReader {
  readonly skipped: SkippedRow[] = [];
  readonly withheld: WithheldField[] = [];

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>,
    private readonly withheldPaths: ReadonlySet<string>,
  ) {}

  object(
    type: GraphQLCompositeType,
    selections: SelectionSetNode,
    value: unknown,
    path: string,
  ): Record<string, unknown> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new AnswerMismatch(path || '(data)', `is ${kindOf(value)}, not a ${type.name} object`);
    }
    const answer = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    this.select(type, selections, answer, path, out, true);
    return out;
  }

  /** Copies the selected fields of `answer` into `out`; `sure` is false inside a fragment paw
   * cannot tell applies (no `__typename`), where an absent field is not a mismatch. */
  private select(
    type: GraphQLCompositeType,
    selections: SelectionSetNode,
    answer: Readonly<Record<string, unknown>>,
    path: string,
    out: Record<string, unknown>,
    sure: boolean,
  ): void {
    for (const selection of selections.selections) {
      if (selection.kind === Kind.FIELD) {
        const name = selection.name.value;
        const key = selection.alias?.value ?? name;
        const here = path === '' ? key : `${path}.${key}`;
        if (name === '__typename') {
          if (typeof answer[key] === 'string') out[key] = answer[key];
          else if (sure)
            throw new AnswerMismatch(here, `is ${kindOf(answer[key])}, not a type name`);
          continue;
        }
        if (!sure && !(key in answer)) continue;
        if (answer[key] == null && this.withheldPaths.has(here)) {
          this.withheld.push({ path: here, field: `${type.name}.${name}` });
          out[key] = null;
          continue;
        }
        const field = 'getFields' in type ? type.getFields()[name] : undefined;
        // The document was checked against this schema: a field it lacks cannot be selected.
        if (field === undefined) throw new AnswerMismatch(here, `is not a field of ${type.name}`);
        out[key] = this.value(field.type, selection.selectionSet, answer[key], here);
        continue;
      }
      const condition =
        selection.kind === Kind.INLINE_FRAGMENT
          ? selection.typeCondition?.name.value
          : this.fragments.get(selection.name.value)?.typeCondition.name.value;
      const selectionSet =
        selection.kind === Kind.INLINE_FRAGMENT
          ? selection.selectionSet
          : this.fragments.get(selection.name.value)?.selectionSet;
      if (selectionSet === undefined) continue;
      const applies = this.applies(type, condition, answer);
      if (applies === false) continue;
      const narrowed = condition === undefined ? type : this.schema.getType(condition);
      if (!isObjectType(narrowed) && !isInterfaceType(narrowed)) continue;
      this.select(narrowed, selectionSet, answer, path, out, sure && applies === true);
    }
  }

  /** Whether a fragment on `condition` applies to this object: by its `__typename` if it has one. */
  private applies(
    type: GraphQLCompositeType,
    condition: string | undefined,
    answer: Readonly<Record<string, unknown>>,
  ): boolean | 'unknown' {
    if (condition === undefined || condition === type.name) return true;
    const typename = answer['__typename'];
    if (typeof typename !== 'string') return 'unknown';
    if (typename === condition) return true;
    const concrete = this.schema.getType(typename);
    return isObjectType(concrete) && concrete.getInterfaces().some((i) => i.name === condition);
  }

  private value(
    type: GraphQLOutputType,
    selections: SelectionSetNode | undefined,
    value: unknown,
    path: string,
  ): unknown {
    if (value === null || value === undefined) {
      if (isNonNullType(type)) {
        throw new AnswerMismatch(path, `is ${kindOf(value)}; the schema says it is never null`);
      }
      return null;
    }
    const nullable = getNullableType(type);
    if (isListType(nullable)) {
      if (!Array.isArray(value)) throw new AnswerMismatch(path, `is ${kindOf(value)}, not a list`);
      const items: unknown[] = [];
      value.forEach((item: unknown, index) => {
        const at = `${path}[${index}]`;
        try {
          items.push(this.value(nullable.ofType, selections, item, at));
        } catch (error) {
          if (!(error instanceof AnswerMismatch)) throw error;
          this.skipped.push({
            path: at,
            problem: error.path === at ? error.problem : `${error.path}: ${error.problem}`,
          });
        }
      });
      return items;
    }
    if (isObjectType(nullable) || isInterfaceType(nullable) || selections !== undefined) {
      if (selections === undefined || !('getFields' in nullable)) {
        throw new AnswerMismatch(path, 'has no selection in the document');
      }
      return this.object(nullable as GraphQLCompositeType, selections, value, path);
    }
    if (isEnumType(nullable)) {
      if (typeof value !== 'string') {
        throw new AnswerMismatch(path, `is ${kindOf(value)}, not a ${nullable.name} word`);
      }
      return value;
    }
    if (isScalarType(nullable)) {
      const problem = scalarProblem(nullable.name, value);
      if (problem !== undefined) throw new AnswerMismatch(path, problem);
      return value;
    }
    return value;
  }
}

/** Why a JSON value is not a value of a scalar (undefined: it is). */
function scalarProblem(scalar: string, value: unknown): string | undefined {
  const is = (ok: boolean, what: string) => (ok ? undefined : `is ${kindOf(value)}, not ${what}`);
  switch (scalar) {
    case 'String':
    case 'UUID':
    case 'DateTime':
      return is(typeof value === 'string', `a ${scalar}`);
    case 'Int':
      return is(Number.isInteger(value), 'an Int');
    case 'Float':
      return is(typeof value === 'number' && Number.isFinite(value), 'a Float');
    case 'Boolean':
      return is(typeof value === 'boolean', 'a Boolean');
    case 'ID':
      return is(typeof value === 'string' || typeof value === 'number', 'an ID');
    case 'Long':
      // Past 2^53 a Long may come as a string of digits.
      return is(
        Number.isInteger(value) || (typeof value === 'string' && /^-?\d+$/.test(value)),
        'a Long',
      );
    default:
      return is(typeof value !== 'object' || value === null, `a ${scalar}`);
  }
}

/** What a JSON value is, for a message that must not contain the value itself. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'missing';
  if (Array.isArray(value)) return 'a list';
  return `a ${typeof value}`;
}
