import { z } from 'zod';
import { UsageError } from '../../shared/usage-error.js';
import {
  DEFAULT_FIELD_ALIASES,
  REST_RECORD_KINDS,
  type RestRecordKind,
} from '../defaults/default-field-aliases.js';

/** The user's aliases (`platform.fieldAliases`): record kind → paw's field → path(s). */
export type FieldAliasSettings = Readonly<
  Partial<Record<RestRecordKind, Readonly<Record<string, string | readonly string[]>>>>
>;

/**
 * Reads a REST record's fields where the platform keeps them: for each of paw's fields the
 * record lacks, the first alias path present is copied in. The record is otherwise untouched,
 * so the zod schemas that follow see paw's field names.
 */
export class FieldAliases {
  private readonly table: Record<RestRecordKind, [string, readonly string[]][]>;

  constructor(user: FieldAliasSettings = {}) {
    const table = {} as Record<RestRecordKind, [string, readonly string[]][]>;
    for (const kind of REST_RECORD_KINDS) {
      const merged = new Map<string, string[]>();
      for (const [field, paths] of Object.entries(user[kind] ?? {})) {
        merged.set(field, typeof paths === 'string' ? [paths] : [...paths]);
      }
      for (const [field, paths] of Object.entries(DEFAULT_FIELD_ALIASES[kind])) {
        merged.set(field, [...(merged.get(field) ?? []), ...paths]);
      }
      table[kind] = [...merged.entries()];
    }
    this.table = table;
  }

  /**
   * A schema that reads `kind` records through the aliases. Refuses (naming the setting and
   * what is valid) an alias for a field the schema does not have.
   */
  schemaFor<S extends z.ZodObject>(kind: RestRecordKind, schema: S): z.ZodType<z.output<S>> {
    const fields = Object.keys(schema.shape);
    for (const [field] of this.table[kind]) {
      if (!fields.includes(field)) {
        throw new UsageError(
          `platform.fieldAliases.${kind}.${field}: paw's ${kind} record has no field "${field}"; ` +
            `its fields are ${fields.join(', ')}`,
        );
      }
    }
    return z.preprocess((value) => this.apply(kind, value), schema);
  }

  /** The record with aliased fields filled in (a new object; non-objects pass through). */
  apply(kind: RestRecordKind, value: unknown): unknown {
    if (!isRecord(value)) return value;
    let result: Record<string, unknown> | undefined;
    for (const [field, paths] of this.table[kind]) {
      if (value[field] !== undefined) continue;
      for (const path of paths) {
        const found = readPath(value, path);
        if (found !== undefined) {
          result ??= { ...value };
          result[field] = found;
          break;
        }
      }
    }
    return result ?? value;
  }
}

function readPath(record: Record<string, unknown>, path: string): unknown {
  let current: unknown = record;
  for (const part of path.split('.')) {
    if (current === null) return null; // `slaDomain: null` means "no SLA Domain", not "unknown"
    if (!isRecord(current)) return undefined;
    current = current[part];
  }
  return current;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
