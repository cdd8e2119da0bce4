/**
 * A schema change as commit data: the new schema (with the id the catalog will give it), the
 * updates `add-schema` + `set-current-schema` and the requirements `assert-current-schema-id` +
 * `assert-last-assigned-field-id`, so two writers evolving the same base cannot both land.
 * Also the user-driven column rename: readers follow field ids, so the data already written
 * keeps its values under the new name.
 */
import { InvalidInputError } from '../errors.js';
import { checkNoMetadataColumnNames } from './metadata-columns.js';
import type { TableRequirement } from './requirements.js';
import { highestFieldId } from './schema.js';
import { matchByName } from './schema-evolution.js';
import { currentSchema } from './snapshot-ancestry.js';
import type { TableMetadata } from './table-metadata.js';
import type { IcebergType, NestedField, Schema } from './types.js';
import type { TableUpdate } from './updates.js';

/** set-current-schema's "the schema added in this commit". */
const LAST_ADDED = -1;

export interface SchemaUpdate {
  /** The table's current schema after the commit. */
  readonly schema: Schema;
  /** Empty when the fields are the current ones (nothing to commit). */
  readonly updates: readonly TableUpdate[];
  readonly requirements: readonly TableRequirement[];
}

/**
 * The commit that makes `fields` the table's current schema. Identifier fields stay those of
 * the current schema unless given. An equal schema already in the table is reused, as the
 * metadata builder and Java do.
 */
export function schemaUpdate(metadata: TableMetadata, fields: readonly NestedField[], identifierFieldIds?: readonly number[]): SchemaUpdate {
  const current = currentSchema(metadata);
  checkNoMetadataColumnNames(`Table at ${metadata.location}`, fields, new Set(current.fields.map((f) => f.name)));
  const next = { fields, identifierFieldIds: identifierFieldIds ?? current.identifierFieldIds };
  if (sameFields(current, next)) return { schema: current, updates: [], requirements: [] };
  const existing = metadata.schemas.find((s) => sameFields(s, next));
  const schemaId = existing?.schemaId ?? Math.max(...metadata.schemas.map((s) => s.schemaId)) + 1;
  const schema: Schema = { schemaId, ...next };
  return {
    schema,
    updates: [
      { action: 'add-schema', schema, lastColumnId: Math.max(metadata.lastColumnId, highestFieldId(schema)) },
      { action: 'set-current-schema', schemaId: LAST_ADDED },
    ],
    requirements: [
      { type: 'assert-current-schema-id', currentSchemaId: metadata.currentSchemaId },
      { type: 'assert-last-assigned-field-id', lastAssignedFieldId: Math.max(metadata.lastColumnId, 0) },
    ],
  };
}

/** The last column id after `update` (what the catalog will record). */
export function lastColumnIdAfter(metadata: TableMetadata, update: SchemaUpdate): number {
  return Math.max(metadata.lastColumnId, highestFieldId(update.schema));
}

/**
 * `schema` with the column at `path` renamed. `path` is a dotted string or, for names holding
 * dots, an array of names; list elements and map keys/values are stepped through as `element`,
 * `key`, `value`. Names match exactly, else by the only case-insensitive match. The new name
 * may not be taken by a sibling (case-insensitively, as writers match names that way).
 */
export function renameColumn(schema: Schema, path: string | readonly string[], newName: string): Schema {
  const names = typeof path === 'string' ? path.split('.') : [...path];
  const shown = names.join('.');
  if (names.length === 0 || names.some((n) => n === '')) throw invalid(`Cannot rename column "${shown}": empty name in the path`, shown);
  if (newName.trim() === '') throw invalid(`Cannot rename column "${shown}": the new name is empty`, shown);
  const renameIn = (fields: readonly NestedField[], rest: readonly string[]): NestedField[] => {
    const [head, ...tail] = rest as [string, ...string[]];
    const index = matchByName(fields, head);
    if (index < 0) throw invalid(`Cannot rename column "${shown}": no column "${head}" there`, shown);
    const field = fields[index] as NestedField;
    if (tail.length > 0) return fields.map((f, i) => (i === index ? { ...f, type: renameInType(f.type, tail) } : f));
    const clash = fields.findIndex((f, i) => i !== index && f.name.toLowerCase() === newName.toLowerCase());
    if (clash >= 0) throw invalid(`Cannot rename column "${shown}" to "${newName}": a column of that name exists`, shown);
    return fields.map((f, i) => (i === index ? { ...field, name: newName } : f));
  };
  const renameInType = (type: IcebergType, rest: readonly string[]): IcebergType => {
    const [head, ...tail] = rest as [string, ...string[]];
    if (type.kind === 'struct') return { kind: 'struct', fields: renameIn(type.fields, rest) };
    const step = head.toLowerCase();
    if (tail.length === 0 && (type.kind === 'list' || type.kind === 'map')) {
      throw invalid(`Cannot rename column "${shown}": list elements and map keys and values have fixed names`, shown);
    }
    if (type.kind === 'list' && step === 'element') return { ...type, element: renameInType(type.element, tail) };
    if (type.kind === 'map' && step === 'key') return { ...type, key: renameInType(type.key, tail) };
    if (type.kind === 'map' && step === 'value') return { ...type, value: renameInType(type.value, tail) };
    throw invalid(`Cannot rename column "${shown}": "${head}" is not a field of ${type.kind}`, shown);
  };
  return { ...schema, fields: renameIn(schema.fields, names) };
}

/** The commit renaming a column of the table's current schema (see renameColumn). */
export function renameColumnUpdate(metadata: TableMetadata, path: string | readonly string[], newName: string): SchemaUpdate {
  return schemaUpdate(metadata, renameColumn(currentSchema(metadata), path, newName).fields);
}

function invalid(message: string, column: string): InvalidInputError {
  return new InvalidInputError(message, { context: { column } });
}

function sameFields(a: Pick<Schema, 'fields' | 'identifierFieldIds'>, b: Pick<Schema, 'fields' | 'identifierFieldIds'>): boolean {
  return canonical(a.fields) === canonical(b.fields) && canonical(a.identifierFieldIds) === canonical(b.identifierFieldIds);
}

/** JSON with object keys sorted and undefined members dropped, so equal schemas compare equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : typeof v === 'bigint'
        ? v.toString()
        : v,
  );
}
