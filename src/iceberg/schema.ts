/**
 * Helpers over a Schema: field lookup by id, fresh id assignment for new tables, and the
 * write-compatibility check for appends. (DuckDB column paths live in duckdb-types.ts, which
 * imports this file, never the other way.)
 */
import { SchemaMismatchError } from '../errors.js';
import type { IcebergType, NestedField, PrimitiveType, Schema } from './types.js';
import { isPrimitive, V3_TYPE_KINDS } from './types.js';

/** A type whose nested children carry no ids yet (from DuckDB or Arrow, before table creation). */
export type UnassignedType =
  | PrimitiveType
  | { readonly kind: 'struct'; readonly fields: readonly UnassignedField[] }
  | { readonly kind: 'list'; readonly elementRequired: boolean; readonly element: UnassignedType }
  | {
      readonly kind: 'map';
      readonly key: UnassignedType;
      readonly valueRequired: boolean;
      readonly value: UnassignedType;
    };

export interface UnassignedField {
  readonly name: string;
  readonly required: boolean;
  readonly type: UnassignedType;
  readonly doc?: string;
}

/**
 * A field found by id. List elements and map keys/values are not NestedFields in the model, so
 * they are returned as synthetic fields named `element`, `key`, `value`. `path` is the chain of
 * names from the top level; `inRepeated` is true under a list or map.
 */
export interface FoundField {
  readonly field: NestedField;
  readonly path: readonly string[];
  readonly inRepeated: boolean;
}

function* walk(
  fields: readonly NestedField[],
  path: readonly string[],
  inRepeated: boolean,
): Generator<FoundField> {
  for (const f of fields) {
    const p = [...path, f.name];
    yield { field: f, path: p, inRepeated };
    yield* walkType(f.type, p, inRepeated);
  }
}

function* walkType(t: IcebergType, path: readonly string[], inRepeated: boolean): Generator<FoundField> {
  if (t.kind === 'struct') {
    yield* walk(t.fields, path, inRepeated);
  } else if (t.kind === 'list') {
    const element: NestedField = { id: t.elementId, name: 'element', required: t.elementRequired, type: t.element };
    yield* walk([element], path, true);
  } else if (t.kind === 'map') {
    const key: NestedField = { id: t.keyId, name: 'key', required: true, type: t.key };
    const value: NestedField = { id: t.valueId, name: 'value', required: t.valueRequired, type: t.value };
    yield* walk([key, value], path, true);
  }
}

/** Every field of the schema (including list elements and map keys/values), depth first. */
export function allFields(schema: Pick<Schema, 'fields'>): FoundField[] {
  return [...walk(schema.fields, [], false)];
}

export function findField(schema: Pick<Schema, 'fields'>, id: number): FoundField | undefined {
  for (const found of walk(schema.fields, [], false)) if (found.field.id === id) return found;
  return undefined;
}

export function highestFieldId(schema: Pick<Schema, 'fields'>): number {
  let max = 0;
  for (const { field } of walk(schema.fields, [], false)) max = Math.max(max, field.id);
  return max;
}

/**
 * Give every field a fresh id the way Java does: all fields of a struct take consecutive ids
 * first, then each field's nested type is numbered in turn (list element; map key then value).
 * Ids start at `lastColumnId + 1`; the result carries the new last id.
 */
export function assignFreshIds(
  fields: readonly UnassignedField[],
  lastColumnId = 0,
): { fields: NestedField[]; lastColumnId: number } {
  let next = lastColumnId;
  const structFields = (fs: readonly UnassignedField[]): NestedField[] => {
    const ids = fs.map(() => ++next);
    return fs.map((f, i) => {
      const out: { -readonly [K in keyof NestedField]: NestedField[K] } = {
        id: ids[i] as number,
        name: f.name,
        required: f.required,
        type: typeWithIds(f.type),
      };
      if (f.doc !== undefined) out.doc = f.doc;
      return out;
    });
  };
  const typeWithIds = (t: UnassignedType): IcebergType => {
    switch (t.kind) {
      case 'struct':
        return { kind: 'struct', fields: structFields(t.fields) };
      case 'list': {
        const elementId = ++next;
        return { kind: 'list', elementId, elementRequired: t.elementRequired, element: typeWithIds(t.element) };
      }
      case 'map': {
        const keyId = ++next;
        const valueId = ++next;
        return {
          kind: 'map',
          keyId,
          key: typeWithIds(t.key),
          valueId,
          valueRequired: t.valueRequired,
          value: typeWithIds(t.value),
        };
      }
      default:
        return t;
    }
  };
  const out = structFields(fields);
  return { fields: out, lastColumnId: next };
}

/** How one table column is fed from the incoming columns (by name, in table order). */
export interface ColumnProjection {
  readonly tableField: NestedField;
  readonly sourceName: string;
  readonly sourceIndex: number;
  /** True when the incoming type is not exactly the table type (a promotion or nested reorder). */
  readonly needsCast: boolean;
}

/** Iceberg's text form of a type (`decimal(9, 2)`, `struct<a: int>`), for messages. */
export function typeText(t: IcebergType | UnassignedType): string {
  switch (t.kind) {
    case 'decimal':
      return `decimal(${t.precision}, ${t.scale})`;
    case 'fixed':
      return `fixed[${t.length}]`;
    case 'struct':
      return `struct<${t.fields.map((f: { name: string; type: IcebergType | UnassignedType }) => `${f.name}: ${typeText(f.type)}`).join(', ')}>`;
    case 'list':
      return `list<${typeText(t.element)}>`;
    case 'map':
      return `map<${typeText(t.key)}, ${typeText(t.value)}>`;
    case 'geometry':
      return t.crs === undefined ? 'geometry' : `geometry(${t.crs})`;
    case 'geography':
      return t.algorithm !== undefined ? `geography(${t.crs ?? 'OGC:CRS84'}, ${t.algorithm})` : t.crs === undefined ? 'geography' : `geography(${t.crs})`;
    default:
      return t.kind;
  }
}

/**
 * Whether a nanosecond timestamp column takes an incoming type by a cast: timestamp_ns takes µs
 * timestamps; timestamptz_ns takes µs timestamptz and timestamp_ns (DuckDB's TIMESTAMP_NS, the
 * form timestamptz_ns has in DuckDB, read as UTC). Values outside the ns range fail when written.
 */
export function nanosTakes(table: PrimitiveType, incoming: PrimitiveType): boolean {
  if (table.kind === 'timestamp_ns') return incoming.kind === 'timestamp';
  if (table.kind === 'timestamptz_ns') return incoming.kind === 'timestamptz' || incoming.kind === 'timestamp_ns';
  return false;
}

function primitiveWritable(table: PrimitiveType, incoming: PrimitiveType): 'same' | 'promote' | 'no' {
  if (table.kind === 'decimal') {
    if (incoming.kind !== 'decimal' || incoming.scale !== table.scale) return 'no';
    if (incoming.precision === table.precision) return 'same';
    return incoming.precision < table.precision ? 'promote' : 'no';
  }
  if (table.kind === 'fixed') return incoming.kind === 'fixed' && incoming.length === table.length ? 'same' : 'no';
  if (table.kind === incoming.kind) return 'same';
  if (table.kind === 'long' && incoming.kind === 'int') return 'promote';
  if (table.kind === 'double' && incoming.kind === 'float') return 'promote';
  if (nanosTakes(table, incoming)) return 'promote';
  return 'no';
}

function findByName<T extends { readonly name: string }>(items: readonly T[], name: string): number {
  const exact = items.findIndex((i) => i.name === name);
  if (exact >= 0) return exact;
  const lower = name.toLowerCase();
  const loose = items.flatMap((i, idx) => (i.name.toLowerCase() === lower ? [idx] : []));
  return loose.length === 1 ? (loose[0] as number) : -1;
}

/** Compares one table type with an incoming type; pushes problems; returns whether a cast is needed. */
function compareTypes(table: IcebergType, incoming: UnassignedType, name: string, problems: string[]): boolean {
  if (isPrimitive(table)) {
    if (incoming.kind === 'struct' || incoming.kind === 'list' || incoming.kind === 'map') {
      problems.push(`column "${name}" is ${typeText(table)} in the table but ${typeText(incoming)} in the input`);
      return false;
    }
    const verdict = primitiveWritable(table, incoming);
    if (verdict === 'no') {
      problems.push(`column "${name}" is ${typeText(table)} in the table but ${typeText(incoming)} in the input`);
    }
    return verdict === 'promote';
  }
  if (table.kind !== incoming.kind) {
    problems.push(`column "${name}" is ${typeText(table)} in the table but ${typeText(incoming)} in the input`);
    return false;
  }
  if (table.kind === 'struct' && incoming.kind === 'struct') {
    return compareFields(table.fields, incoming.fields, `${name}.`, problems).needsCast;
  }
  if (table.kind === 'list' && incoming.kind === 'list') {
    if (table.elementRequired && !incoming.elementRequired) {
      problems.push(`column "${name}.element" is required in the table but optional in the input`);
    }
    return compareTypes(table.element, incoming.element, `${name}.element`, problems);
  }
  if (table.kind === 'map' && incoming.kind === 'map') {
    if (table.valueRequired && !incoming.valueRequired) {
      problems.push(`column "${name}.value" is required in the table but optional in the input`);
    }
    const k = compareTypes(table.key, incoming.key, `${name}.key`, problems);
    const v = compareTypes(table.value, incoming.value, `${name}.value`, problems);
    return k || v;
  }
  return false;
}

function compareFields(
  table: readonly NestedField[],
  incoming: readonly UnassignedField[],
  prefix: string,
  problems: string[],
): { projection: ColumnProjection[]; needsCast: boolean } {
  const used = new Set<number>();
  const projection: ColumnProjection[] = [];
  let needsCast = false;
  table.forEach((tf, position) => {
    const idx = findByName(incoming, tf.name);
    if (idx < 0 || used.has(idx)) {
      problems.push(`column "${prefix}${tf.name}" is missing from the input`);
      needsCast = true;
      return;
    }
    used.add(idx);
    const inf = incoming[idx] as UnassignedField;
    if (tf.required && !inf.required) {
      problems.push(`column "${prefix}${tf.name}" is required in the table but optional in the input`);
    }
    const cast = compareTypes(tf.type, inf.type, prefix + tf.name, problems);
    if (cast || idx !== position || inf.name !== tf.name) needsCast = true;
    projection.push({ tableField: tf, sourceName: inf.name, sourceIndex: idx, needsCast: cast });
  });
  incoming.forEach((f, idx) => {
    if (!used.has(idx)) problems.push(`column "${prefix}${f.name}" in the input is not in the table`);
  });
  return { projection, needsCast };
}

/**
 * Check that incoming columns can be written into the table schema, and return how to project
 * them onto the table (table order, matched by name; exact first, else a unique case-insensitive
 * match). Allowed: same type, int→long, float→double, decimal precision widening with the same
 * scale. A required table column fed by an optional one, a missing column, and an extra column
 * are errors; all problems are reported together in one SchemaMismatchError.
 */
export function checkWriteCompatible(
  tableSchema: Pick<Schema, 'fields'>,
  incoming: readonly UnassignedField[],
): ColumnProjection[] {
  const problems: string[] = [];
  const { projection } = compareFields(tableSchema.fields, incoming, '', problems);
  if (problems.length > 0) {
    throw new SchemaMismatchError(`input cannot be written to the table: ${problems.join('; ')}`, {
      context: { problems: problems.length, first: problems[0] },
    });
  }
  return projection;
}

/**
 * What keeps `schema` out of a table of `formatVersion` (Java's Schema.checkCompatibility): the
 * v3 types (timestamp_ns, timestamptz_ns, unknown, variant, geometry, geography) before v3, a
 * non-null initial-default before v3 (unless `existing` schemas of the table already hold that
 * field with that default: tables written so by other tools stay evolvable), and a required
 * column of type unknown (always optional). Empty when none.
 */
export function formatVersionProblems(
  schema: Pick<Schema, 'fields'>,
  formatVersion: number,
  existing: readonly Pick<Schema, 'fields'>[] = [],
): string[] {
  const problems: string[] = [];
  const known = new Map<number, unknown>();
  for (const s of existing) for (const { field } of allFields(s)) if (field.initialDefault !== undefined) known.set(field.id, field.initialDefault);
  for (const { field, path } of allFields(schema)) {
    const name = path.join('.');
    if (formatVersion < 3 && V3_TYPE_KINDS.has(field.type.kind)) {
      problems.push(`Invalid type for ${name}: ${typeText(field.type)} is not supported until v3 (create the table with format-version 3)`);
    }
    if (field.type.kind === 'unknown' && field.required) problems.push(`Invalid type for ${name}: unknown columns must be optional`);
    const initial = field.initialDefault;
    if (formatVersion < 3 && initial !== undefined && initial !== null && !sameDefault(known.get(field.id), initial)) {
      problems.push(`Invalid initial default for ${name}: non-null default is not supported until v3`);
    }
  }
  return problems;
}

function sameDefault(a: unknown, b: unknown): boolean {
  const text = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x));
  return a !== undefined && text(a) === text(b);
}
