/**
 * The partition tuple of a spec as computed DuckDB columns: one key column per non-void field
 * (transforms/duckdb-sql.ts via partitionSql), named so it never clashes with a table column,
 * which a partitioned COPY partitions by and does not write. RETURN_STATS gives each file's key
 * values back as text; here they become the JS single-value forms of the result types
 * (partition-values.ts, bounds.ts). Key text is lossless: DuckDB prints integers exactly, floats
 * in shortest round-trip form with their sign, and binary values are hex-encoded first.
 */
import { IcebergFormatError } from '../errors.js';
import type { PartitionValues } from '../iceberg/data-file.js';
import { partitionType } from '../iceberg/manifest.js';
import { bindPartitionField, partitionSql } from '../iceberg/partition-fields.js';
import type { PathField } from '../iceberg/partition-values.js';
import type { PartitionSpec } from '../iceberg/table-metadata.js';
import { encodeSingleValue } from '../iceberg/bounds.js';
import { typeText } from '../iceberg/schema.js';
import { parseTransform, transformToString, type Transform } from '../iceberg/transforms/transform.js';
import type { PrimitiveType, Schema } from '../iceberg/types.js';

export interface PartitionKeyColumn {
  readonly fieldId: number;
  readonly transform: Transform;
  /** The computed column's name in the COPY query. */
  readonly column: string;
  /** DuckDB expression over the query's columns giving the key text's value. */
  readonly sql: string;
  readonly resultType: PrimitiveType;
}

export interface PartitionLayout {
  readonly specId: number;
  /** Every field of the spec in spec order (void ones too): paths and tuples. */
  readonly fields: readonly PathField[];
  /** The non-void fields, computed in DuckDB. */
  readonly keys: readonly PartitionKeyColumn[];
}

export function partitionLayout(spec: PartitionSpec, schema: Schema): PartitionLayout {
  const taken = new Set(schema.fields.map((f) => f.name.toLowerCase()));
  const fields: PathField[] = partitionType(spec, schema).map((f) => ({
    fieldId: f.fieldId,
    name: f.name,
    resultType: f.type,
    transform: parseTransform(spec.fields.find((p) => p.fieldId === f.fieldId)!.transform),
  }));
  const keys = spec.fields
    .filter((field) => parseTransform(field.transform).kind !== 'void')
    .map((field): PartitionKeyColumn => {
      const [column] = partitionSql([bindPartitionField(field, schema)]);
      let name = `__thund_partition_${field.fieldId}`;
      while (taken.has(name.toLowerCase())) name = `_${name}`;
      taken.add(name.toLowerCase());
      const { resultType, sql } = column!;
      return { fieldId: field.fieldId, transform: parseTransform(field.transform), column: name, sql: keySql(resultType, sql), resultType };
    });
  return { specId: spec.specId, fields, keys };
}

/**
 * The most partitions the spec's key columns can produce (nulls counted), or undefined when a
 * transform has no bound (time, identity, truncate): only bucket[N] and boolean identity do.
 */
export function maxPartitionCount(layout: PartitionLayout): number | undefined {
  let count = 1;
  for (const { transform, resultType } of layout.keys) {
    if (transform.kind === 'bucket') count *= transform.numBuckets + 1;
    else if (transform.kind === 'identity' && resultType.kind === 'boolean') count *= 3;
    else return undefined;
  }
  return count;
}

/**
 * Bytes as hex, so the text is lossless. Floats as text: DuckDB partitions -0.0 and 0.0 together
 * as numbers, while Iceberg (Java's comparators) keeps them apart and prunes by the difference.
 */
function keySql(type: PrimitiveType, sql: string): string {
  switch (type.kind) {
    case 'binary':
    case 'fixed':
      return `hex(${sql})`;
    case 'float':
    case 'double':
      return `CAST(${sql} AS VARCHAR)`;
    default:
      return sql;
  }
}

/** The tuple of one file from its RETURN_STATS `partition_keys`; void fields are null. */
export function partitionTupleOf(layout: PartitionLayout, partitionKeys: unknown, file: string): PartitionValues {
  const texts = keyTexts(partitionKeys);
  const tuple = new Map<number, unknown>();
  for (const field of layout.fields) tuple.set(field.fieldId, null);
  for (const key of layout.keys) {
    if (!texts.has(key.column)) {
      throw new IcebergFormatError(`DuckDB reported no value of partition key ${key.column} for ${file}`, {
        context: { file, partitionFieldId: key.fieldId },
      });
    }
    tuple.set(key.fieldId, storableKeyValue(layout, key, parseKeyText(key.resultType, texts.get(key.column) ?? null)));
  }
  return tuple;
}

/**
 * The key value, refused when its result type cannot hold it (truncate[W] of a decimal near the
 * precision's limit gives one more digit; Java refuses to write it too): caught here, before the
 * files are placed, rather than when the manifest is written.
 */
function storableKeyValue(layout: PartitionLayout, key: PartitionKeyColumn, value: unknown): unknown {
  if (value === null) return value;
  try {
    encodeSingleValue(key.resultType, value);
  } catch (cause) {
    const field = layout.fields.find((f) => f.fieldId === key.fieldId)!.name;
    const transform = transformToString(key.transform);
    const why = cause instanceof Error ? cause.message : String(cause);
    throw new IcebergFormatError(`Partition field ${field} (${transform}) has a value its type ${typeText(key.resultType)} cannot hold: ${why}`, {
      cause,
      context: { partitionField: field, transform },
    });
  }
  return value;
}

/** `partition_keys` as queryJson gives it (`[{key, value}]`), or as a Map or plain object. */
function keyTexts(raw: unknown): Map<string, string | null> {
  let entries: [unknown, unknown][];
  if (Array.isArray(raw)) entries = raw.map((e: { key?: unknown; value?: unknown }) => [e?.key, e?.value]);
  else if (raw instanceof Map) entries = [...raw.entries()];
  else if (typeof raw === 'object' && raw !== null) entries = Object.entries(raw);
  else entries = [];
  const out = new Map<string, string | null>();
  for (const [key, value] of entries) {
    if (typeof key === 'string') out.set(key, value === null || value === undefined ? null : String(value));
  }
  return out;
}

const INTEGER = /^-?\d+$/;

/** Key text (DuckDB's VARCHAR of the key value) → the JS single-value form of `type`. */
export function parseKeyText(type: PrimitiveType, text: string | null): unknown {
  if (text === null) return null;
  const bad = (): never => {
    throw new IcebergFormatError(`Cannot read partition value "${text}" as ${type.kind}`, { context: { type: type.kind } });
  };
  switch (type.kind) {
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : bad();
    case 'int':
    case 'date':
      return INTEGER.test(text) ? Number(text) : bad();
    case 'long':
    case 'time':
    case 'timestamp':
    case 'timestamptz':
    case 'timestamp_ns':
    case 'timestamptz_ns':
    case 'decimal':
      return INTEGER.test(text) ? BigInt(text) : bad();
    case 'float':
    case 'double': {
      const value = floatingText(text) ?? bad();
      return type.kind === 'float' ? Math.fround(value) : value;
    }
    case 'string':
    case 'uuid':
      return text;
    case 'binary':
    case 'fixed':
      return /^(?:[0-9A-Fa-f]{2})*$/.test(text) ? new Uint8Array(Buffer.from(text, 'hex')) : bad();
    case 'unknown':
      return bad();
  }
}

function floatingText(text: string): number | undefined {
  const t = text.toLowerCase();
  if (t === 'nan' || t === '-nan') return NaN;
  if (t === 'inf' || t === 'infinity') return Infinity;
  if (t === '-inf' || t === '-infinity') return -Infinity;
  return /^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/.test(t) ? Number(t) : undefined;
}
