/**
 * Reading decoded Avro records by Iceberg field id instead of by name. Foreign writers name
 * fields differently (v1 `added_data_files_count`, BigQuery's `data_file` record), reorder them
 * and leave optional ones out; the ids are what the spec fixes.
 */
import { IcebergFormatError } from '../../errors.js';
import type { AvroSchema, AvroSchemaObject } from './container.js';

export type NamedTypes = ReadonlyMap<string, AvroSchemaObject>;

export function isSchemaObject(schema: AvroSchema): schema is AvroSchemaObject {
  return typeof schema === 'object' && !Array.isArray(schema);
}

/** Every named type (record, fixed, enum) defined anywhere in the schema, by short and full name. */
export function collectNamedTypes(schema: AvroSchema, into = new Map<string, AvroSchemaObject>()): Map<string, AvroSchemaObject> {
  if (Array.isArray(schema)) {
    for (const branch of schema as readonly AvroSchema[]) collectNamedTypes(branch, into);
  } else if (isSchemaObject(schema)) {
    const name = schema['name'];
    if (typeof name === 'string' && (schema.type === 'record' || schema.type === 'fixed' || schema.type === 'enum')) {
      into.set(name, schema);
      const namespace = schema['namespace'];
      if (typeof namespace === 'string' && namespace !== '') into.set(`${namespace}.${name}`, schema);
      if (name.includes('.')) into.set(name.slice(name.lastIndexOf('.') + 1), schema);
    }
    if (typeof schema.type !== 'string') collectNamedTypes(schema.type, into);
    const fields = schema['fields'];
    if (Array.isArray(fields)) for (const f of fields as { type: AvroSchema }[]) collectNamedTypes(f.type, into);
    if (schema['items'] !== undefined) collectNamedTypes(schema['items'] as AvroSchema, into);
    if (schema['values'] !== undefined) collectNamedTypes(schema['values'] as AvroSchema, into);
  }
  return into;
}

/**
 * The non-null branch of an optional union, with named references resolved, so the result is a
 * primitive name or a schema object. `{"type": "int"}` style wrappers are kept as objects.
 */
export function resolveSchema(schema: AvroSchema, names: NamedTypes): AvroSchema {
  let s = schema;
  if (Array.isArray(s)) {
    const branches = (s as readonly AvroSchema[]).filter((b) => b !== 'null');
    if (branches.length !== 1) return s;
    s = branches[0]!;
  }
  if (typeof s === 'string') return names.get(s) ?? s;
  if (isSchemaObject(s) && typeof s.type !== 'string') return resolveSchema(s.type, names);
  return s;
}

/** The Avro type name of a resolved schema: `int`, `long`, `fixed`, `record`, `array`, ... */
export function typeName(schema: AvroSchema): string {
  if (typeof schema === 'string') return schema;
  if (isSchemaObject(schema) && typeof schema.type === 'string') return schema.type;
  return 'union';
}

export function logicalType(schema: AvroSchema): string | undefined {
  return isSchemaObject(schema) && typeof schema['logicalType'] === 'string' ? schema['logicalType'] : undefined;
}

interface FieldInfo {
  readonly name: string;
  readonly fieldId: number | undefined;
  readonly schema: AvroSchema;
}

/** A record schema indexed by field id (and by name, for writers that left ids out). */
export class RecordView {
  private readonly byId = new Map<number, FieldInfo>();
  private readonly byName = new Map<string, FieldInfo>();
  readonly fields: readonly FieldInfo[];

  constructor(
    schema: AvroSchema,
    readonly names: NamedTypes,
    private readonly where: string,
  ) {
    const resolved = resolveSchema(schema, names);
    if (!isSchemaObject(resolved) || resolved.type !== 'record' || !Array.isArray(resolved['fields'])) {
      throw new IcebergFormatError(`${where}: expected an Avro record schema`, { context: { file: where } });
    }
    this.fields = (resolved['fields'] as Record<string, unknown>[]).map((f) => ({
      name: String(f['name']),
      fieldId: typeof f['field-id'] === 'number' ? f['field-id'] : undefined,
      schema: f['type'] as AvroSchema,
    }));
    for (const f of this.fields) {
      if (f.fieldId !== undefined) this.byId.set(f.fieldId, f);
      this.byName.set(f.name, f);
    }
  }

  has(fieldId: number): boolean {
    return this.byId.has(fieldId);
  }

  private info(fieldId: number, fallbackName?: string): FieldInfo | undefined {
    return this.byId.get(fieldId) ?? (fallbackName === undefined ? undefined : this.byName.get(fallbackName));
  }

  /** The field's value (null when absent from the file's schema or null in the record). */
  get(record: unknown, fieldId: number, fallbackName?: string): unknown {
    const f = this.info(fieldId, fallbackName);
    if (f === undefined) return null;
    const value = (record as Record<string, unknown>)[f.name];
    return value === undefined ? null : value;
  }

  /** Like get, but a missing or null value is an error naming the field. */
  require(record: unknown, fieldId: number, fallbackName: string): unknown {
    const value = this.get(record, fieldId, fallbackName);
    if (value === null) {
      throw new IcebergFormatError(`${this.where}: required field ${fallbackName} (id ${fieldId}) is missing`, {
        context: { file: this.where, fieldId },
      });
    }
    return value;
  }

  /** The view of a nested record field. */
  child(fieldId: number, fallbackName: string): RecordView {
    const f = this.info(fieldId, fallbackName);
    if (f === undefined) {
      throw new IcebergFormatError(`${this.where}: record field ${fallbackName} (id ${fieldId}) is missing`, {
        context: { file: this.where, fieldId },
      });
    }
    return new RecordView(f.schema, this.names, this.where);
  }

  /** The view of the record items of an array field (e.g. manifest_file.partitions → r508). */
  elementChild(fieldId: number, fallbackName: string): RecordView {
    const array = this.fieldSchema(fieldId, fallbackName);
    if (array === undefined || !isSchemaObject(array) || array.type !== 'array') {
      throw new IcebergFormatError(`${this.where}: array field ${fallbackName} (id ${fieldId}) is missing`, {
        context: { file: this.where, fieldId },
      });
    }
    return new RecordView(array['items'] as AvroSchema, this.names, this.where);
  }

  /** The resolved (non-null, dereferenced) schema of a field, or undefined when absent. */
  fieldSchema(fieldId: number, fallbackName?: string): AvroSchema | undefined {
    const f = this.info(fieldId, fallbackName);
    return f === undefined ? undefined : resolveSchema(f.schema, this.names);
  }
}
