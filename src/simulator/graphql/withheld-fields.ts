import { GraphQLError, responsePathAsArray, type GraphQLResolveInfo } from 'graphql';
import { randomUUID } from 'node:crypto';

/** What the platform says of a field behind a feature flag or a licence the account lacks. */
const WITHHELD_MESSAGE =
  'Account does not have the appropriate features enabled to access the field.';

/**
 * The fields one request selected that the simulator withholds (the faults' `withheldFields`,
 * `Type.field`, the type an object type or one of its interfaces). The platform answers such a
 * field `null`, with an error whose `extensions.code` is 403, beside the rest of the data (see
 * docs/simulator.md): even a non-null field, so the null must not spread to its parents as
 * graphql-js would make it. The field is therefore resolved as usual and nulled in the answer
 * afterwards, by {@link WithheldFields.apply}.
 */
export class WithheldFields {
  private readonly paths: { path: (string | number)[]; info: GraphQLResolveInfo }[] = [];

  constructor(private readonly names: ReadonlySet<string>) {}

  /** Notes the field `info` resolves when it is withheld. */
  note(info: GraphQLResolveInfo): void {
    if (this.names.size === 0) return;
    const { parentType, fieldName } = info;
    const withheld =
      this.names.has(`${parentType.name}.${fieldName}`) ||
      ('getInterfaces' in parentType &&
        parentType.getInterfaces().some((parent) => this.names.has(`${parent.name}.${fieldName}`)));
    if (withheld) this.paths.push({ path: responsePathAsArray(info.path), info });
  }

  /** The answer with every noted field null and an error of its own, after the others. */
  apply<T extends { data?: unknown; errors?: readonly GraphQLError[] }>(result: T): T {
    if (this.paths.length === 0 || result.data == null) return result;
    const errors: GraphQLError[] = [...(result.errors ?? [])];
    for (const { path, info } of this.paths) {
      let parent: unknown = result.data;
      for (const step of path.slice(0, -1)) {
        parent = (parent as Record<string | number, unknown> | null | undefined)?.[step];
      }
      if (typeof parent !== 'object' || parent === null) continue;
      (parent as Record<string | number, unknown>)[path.at(-1) ?? ''] = null;
      errors.push(
        new GraphQLError(WITHHELD_MESSAGE, {
          nodes: info.fieldNodes,
          path,
          extensions: {
            code: 403,
            trace: { operation: '/api/graphql', traceId: randomUUID(), spanId: randomUUID() },
          },
        }),
      );
    }
    return { ...result, errors };
  }
}
