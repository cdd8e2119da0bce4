/**
 * Iceberg type and schema JSON (spec §2.1) ⇄ the type model in types.ts.
 * Integers may arrive as bigint from a BigInt-safe JSON parser; both forms are accepted.
 */
import { IcebergFormatError } from '../errors.js';
import { parseDefaultValue } from './default-values.js';
import type {
  IcebergType,
  ListType,
  MapType,
  NestedField,
  PrimitiveKind,
  PrimitiveType,
  Schema,
  StructType,
} from './types.js';

const SIMPLE_KINDS: ReadonlySet<string> = new Set<PrimitiveKind>([
  'boolean',
  'int',
  'long',
  'float',
  'double',
  'date',
  'time',
  'timestamp',
  'timestamptz',
  'timestamp_ns',
  'timestamptz_ns',
  'string',
  'uuid',
  'binary',
  'unknown',
  'variant',
]);

const DECIMAL_RE = /^decimal\(\s*(\d+)\s*,\s*(\d+)\s*\)$/;
const FIXED_RE = /^fixed\[\s*(\d+)\s*\]$/;
// Java's patterns (Types.java): the parameters are optional, the names case-insensitive.
const GEOMETRY_RE = /^geometry\s*(?:\(\s*([^)]*?)\s*\))?$/i;
const GEOGRAPHY_RE = /^geography\s*(?:\(\s*([^,]*?)\s*(?:,\s*(\w*)\s*)?\))?$/i;
const GEOGRAPHY_ALGORITHMS: ReadonlySet<string> = new Set(['spherical', 'vincenty', 'thomas', 'andoyer', 'karney']);

function fail(path: string, message: string): never {
  throw new IcebergFormatError(`${message} at ${path}`, { context: { path } });
}

function isRecord(json: unknown): json is Record<string, unknown> {
  return typeof json === 'object' && json !== null && !Array.isArray(json);
}

function readInt(json: Record<string, unknown>, key: string, path: string): number {
  const v = json[key];
  if (typeof v === 'bigint' && v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)) {
    return Number(v);
  }
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  return fail(`${path}.${key}`, `expected an integer, got ${describe(v)}`);
}

function readBool(json: Record<string, unknown>, key: string, path: string): boolean {
  const v = json[key];
  if (typeof v === 'boolean') return v;
  return fail(`${path}.${key}`, `expected a boolean, got ${describe(v)}`);
}

function readString(json: Record<string, unknown>, key: string, path: string): string {
  const v = json[key];
  if (typeof v === 'string') return v;
  return fail(`${path}.${key}`, `expected a string, got ${describe(v)}`);
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (typeof v === 'bigint') return `${v}`;
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

function parsePrimitive(text: string, path: string): PrimitiveType {
  if (SIMPLE_KINDS.has(text)) return { kind: text as PrimitiveKind };
  const dec = DECIMAL_RE.exec(text);
  if (dec) {
    const precision = Number(dec[1]);
    const scale = Number(dec[2]);
    if (precision < 1 || precision > 38) fail(path, `decimal precision must be 1..38, got ${precision}`);
    if (scale > precision) fail(path, `decimal scale ${scale} exceeds precision ${precision}`);
    return { kind: 'decimal', precision, scale };
  }
  const fx = FIXED_RE.exec(text);
  if (fx) {
    const length = Number(fx[1]);
    if (length < 1) fail(path, `fixed length must be positive, got ${length}`);
    return { kind: 'fixed', length };
  }
  const geometry = GEOMETRY_RE.exec(text);
  if (geometry) {
    const crs = geometry[1];
    return crs === undefined || crs === '' ? { kind: 'geometry' } : { kind: 'geometry', crs };
  }
  const geography = GEOGRAPHY_RE.exec(text);
  if (geography) {
    const crs = geography[1];
    const algorithm = geography[2]?.toLowerCase();
    if (algorithm !== undefined && algorithm !== '' && !GEOGRAPHY_ALGORITHMS.has(algorithm)) {
      fail(path, `unknown edge-interpolation algorithm "${geography[2]}" in "${text}" (known: ${[...GEOGRAPHY_ALGORITHMS].join(', ')})`);
    }
    return {
      kind: 'geography',
      ...(crs === undefined || crs === '' ? {} : { crs }),
      ...(algorithm === undefined || algorithm === '' ? {} : { algorithm }),
    };
  }
  return fail(path, `unsupported Iceberg type "${text}"`);
}

function parseField(json: unknown, path: string): NestedField {
  if (!isRecord(json)) fail(path, `expected a struct field object, got ${describe(json)}`);
  const id = readInt(json, 'id', path);
  const name = readString(json, 'name', path);
  const fieldPath = `${path}(${name})`;
  const required = readBool(json, 'required', fieldPath);
  const type = parseType(json['type'], `${fieldPath}.type`);
  const field: { -readonly [K in keyof NestedField]: NestedField[K] } = { id, name, required, type };
  if (json['doc'] !== undefined) field.doc = readString(json, 'doc', fieldPath);
  // Kept in their JSON form (written back as read); checked against the type here.
  if (json['initial-default'] !== undefined) {
    parseDefaultValue(type, json['initial-default'], `${fieldPath}.initial-default`);
    field.initialDefault = json['initial-default'];
  }
  if (json['write-default'] !== undefined) {
    parseDefaultValue(type, json['write-default'], `${fieldPath}.write-default`);
    field.writeDefault = json['write-default'];
  }
  return field;
}

function parseStruct(json: Record<string, unknown>, path: string): StructType {
  const fields = json['fields'];
  if (!Array.isArray(fields)) fail(`${path}.fields`, `expected an array, got ${describe(fields)}`);
  return { kind: 'struct', fields: fields.map((f, i) => parseField(f, `${path}.fields[${i}]`)) };
}

function parseList(json: Record<string, unknown>, path: string): ListType {
  return {
    kind: 'list',
    elementId: readInt(json, 'element-id', path),
    elementRequired: readBool(json, 'element-required', path),
    element: parseType(json['element'], `${path}.element`),
  };
}

function parseMap(json: Record<string, unknown>, path: string): MapType {
  return {
    kind: 'map',
    keyId: readInt(json, 'key-id', path),
    key: parseType(json['key'], `${path}.key`),
    valueId: readInt(json, 'value-id', path),
    valueRequired: readBool(json, 'value-required', path),
    value: parseType(json['value'], `${path}.value`),
  };
}

/** Parse one Iceberg type from its JSON form; `path` names the place for error messages. */
export function parseType(json: unknown, path: string): IcebergType {
  if (typeof json === 'string') return parsePrimitive(json, path);
  if (!isRecord(json)) return fail(path, `expected a type string or object, got ${describe(json)}`);
  switch (json['type']) {
    case 'struct':
      return parseStruct(json, path);
    case 'list':
      return parseList(json, path);
    case 'map':
      return parseMap(json, path);
    default:
      return fail(path, `unknown nested type ${describe(json['type'])}`);
  }
}

function primitiveToJson(t: PrimitiveType): string {
  if (t.kind === 'decimal') {
    const d = t as { precision: number; scale: number };
    return `decimal(${d.precision}, ${d.scale})`;
  }
  if (t.kind === 'fixed') return `fixed[${(t as { length: number }).length}]`;
  if (t.kind === 'geometry') return t.crs === undefined ? 'geometry' : `geometry(${t.crs})`;
  if (t.kind === 'geography') {
    if (t.algorithm !== undefined) return `geography(${t.crs ?? 'OGC:CRS84'}, ${t.algorithm})`;
    return t.crs === undefined ? 'geography' : `geography(${t.crs})`;
  }
  return t.kind;
}

function fieldToJson(f: NestedField): Record<string, unknown> {
  const out: Record<string, unknown> = { id: f.id, name: f.name, required: f.required, type: typeToJson(f.type) };
  if (f.doc !== undefined) out['doc'] = f.doc;
  if (f.initialDefault !== undefined) out['initial-default'] = f.initialDefault;
  if (f.writeDefault !== undefined) out['write-default'] = f.writeDefault;
  return out;
}

/** The JSON form of an Iceberg type (the inverse of parseType). */
export function typeToJson(t: IcebergType): unknown {
  switch (t.kind) {
    case 'struct':
      return { type: 'struct', fields: (t as StructType).fields.map(fieldToJson) };
    case 'list': {
      const l = t as ListType;
      return {
        type: 'list',
        'element-id': l.elementId,
        element: typeToJson(l.element),
        'element-required': l.elementRequired,
      };
    }
    case 'map': {
      const m = t as MapType;
      return {
        type: 'map',
        'key-id': m.keyId,
        key: typeToJson(m.key),
        'value-id': m.valueId,
        value: typeToJson(m.value),
        'value-required': m.valueRequired,
      };
    }
    default:
      return primitiveToJson(t as PrimitiveType);
  }
}

function collectIds(fields: readonly NestedField[], seen: Map<number, string>, where: string, prefix: string): void {
  const add = (id: number, name: string): void => {
    const prior = seen.get(id);
    if (prior !== undefined) fail(where, `field id ${id} is used by both "${prior}" and "${name}"`);
    seen.set(id, name);
  };
  const visit = (t: IcebergType, name: string): void => {
    if (t.kind === 'struct') collectIds((t as StructType).fields, seen, where, `${name}.`);
    else if (t.kind === 'list') {
      const l = t as ListType;
      add(l.elementId, `${name}.element`);
      visit(l.element, `${name}.element`);
    } else if (t.kind === 'map') {
      const m = t as MapType;
      add(m.keyId, `${name}.key`);
      add(m.valueId, `${name}.value`);
      visit(m.key, `${name}.key`);
      visit(m.value, `${name}.value`);
    }
  };
  for (const f of fields) {
    add(f.id, prefix + f.name);
    visit(f.type, prefix + f.name);
  }
}

/**
 * Parse a schema object (a struct plus schema-id and identifier-field-ids). A missing schema-id
 * (v1 `schema`) reads as 0. Field ids must be unique across the whole schema.
 */
export function parseSchema(json: unknown, where: string): Schema {
  if (!isRecord(json)) return fail(where, `expected a schema object, got ${describe(json)}`);
  if (json['type'] !== undefined && json['type'] !== 'struct') {
    fail(`${where}.type`, `a schema must be a struct, got ${describe(json['type'])}`);
  }
  const struct = parseStruct(json, where);
  const schemaId = json['schema-id'] === undefined ? 0 : readInt(json, 'schema-id', where);
  const rawIds = json['identifier-field-ids'];
  let identifierFieldIds: number[] = [];
  if (rawIds !== undefined && rawIds !== null) {
    if (!Array.isArray(rawIds)) fail(`${where}.identifier-field-ids`, `expected an array, got ${describe(rawIds)}`);
    identifierFieldIds = rawIds.map((_, i) => readInt(rawIds as unknown as Record<string, unknown>, String(i), `${where}.identifier-field-ids`));
  }
  const seen = new Map<number, string>();
  collectIds(struct.fields, seen, where, '');
  for (const id of identifierFieldIds) {
    if (!seen.has(id)) fail(`${where}.identifier-field-ids`, `identifier field id ${id} is not in the schema`);
  }
  return { schemaId, identifierFieldIds, fields: struct.fields };
}

/** The JSON form of a schema; identifier-field-ids is written only when non-empty. */
export function schemaToJson(s: Schema): Record<string, unknown> {
  const out: Record<string, unknown> = { type: 'struct', 'schema-id': s.schemaId };
  if (s.identifierFieldIds.length > 0) out['identifier-field-ids'] = [...s.identifierFieldIds];
  out['fields'] = s.fields.map(fieldToJson);
  return out;
}
