/**
 * Raw Avro schemas of the manifest (`manifest_entry`) and manifest list (`manifest_file`) records,
 * spec §3, in Java's field order, with Iceberg's `field-id` / `element-id` attributes. These
 * objects are written verbatim into the container header (see container.ts).
 */
import { IcebergFormatError } from '../../errors.js';
import type { PrimitiveType } from '../types.js';
import type { AvroSchema, AvroSchemaObject } from './container.js';

export type ManifestFormatVersion = 2 | 3;

/** One field of the partition tuple: partition field id, partition name, transform result type. */
export interface PartitionFieldType {
  readonly fieldId: number;
  readonly name: string;
  readonly type: PrimitiveType;
}

export interface AvroField {
  readonly name: string;
  readonly type: AvroSchema;
  readonly 'field-id'?: number;
  readonly default?: null;
  readonly doc?: string;
}

const required = (name: string, fieldId: number, type: AvroSchema): AvroField => ({ name, type, 'field-id': fieldId });
const optional = (name: string, fieldId: number, type: AvroSchema): AvroField => ({
  name,
  type: ['null', type],
  default: null,
  'field-id': fieldId,
});

/** Metrics map `map<int, V>` as Iceberg writes it: an array of k<key>_v<value> records. */
function intMap(keyId: number, valueId: number, value: AvroSchema): AvroSchemaObject {
  return {
    type: 'array',
    logicalType: 'map',
    items: {
      type: 'record',
      name: `k${keyId}_v${valueId}`,
      fields: [required('key', keyId, 'int'), required('value', valueId, value)],
    },
  };
}

/** Minimum bytes of a two's-complement integer holding any unscaled value of precision P. */
export function decimalRequiredBytes(precision: number): number {
  if (!Number.isInteger(precision) || precision < 1 || precision > 38) {
    throw new IcebergFormatError(`Decimal precision ${precision} is outside 1..38`);
  }
  const max = 10n ** BigInt(precision) - 1n;
  let bytes = 1;
  while (max >= 1n << BigInt(8 * bytes - 1)) bytes++;
  return bytes;
}

/**
 * Avro names must match [A-Za-z_][A-Za-z0-9_]*. Like Java's writers, replace anything else by
 * `_x<HEX>` (a leading digit gets a `_` prefix); readers resolve by field id, not by this name.
 */
export function avroFieldName(name: string): string {
  let out = '';
  let index = 0;
  for (const ch of name) {
    const code = ch.codePointAt(0)!;
    const letter = (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || ch === '_';
    const digit = code >= 48 && code <= 57;
    if (letter || (digit && index > 0)) out += ch;
    else if (digit) out += `_${ch}`;
    else out += `_x${code.toString(16).toUpperCase()}`;
    index++;
  }
  return out === '' ? '_' : out;
}

/**
 * Avro form of a partition result type (ICEBERG.md §2.3). Named fixed types are defined once and
 * referenced by name afterwards, as Avro requires; `defined` tracks the names already emitted.
 */
export function partitionValueSchema(type: PrimitiveType, defined: Set<string>): AvroSchema {
  const named = (name: string, schema: AvroSchemaObject): AvroSchema => {
    if (defined.has(name)) return name;
    defined.add(name);
    return schema;
  };
  switch (type.kind) {
    case 'boolean':
    case 'int':
    case 'long':
    case 'float':
    case 'double':
    case 'string':
      return type.kind;
    case 'binary':
      return 'bytes';
    case 'date':
      return { type: 'int', logicalType: 'date' };
    case 'time':
      return { type: 'long', logicalType: 'time-micros' };
    case 'timestamp':
    case 'timestamptz':
      return { type: 'long', logicalType: 'timestamp-micros', 'adjust-to-utc': type.kind === 'timestamptz' };
    case 'timestamp_ns':
    case 'timestamptz_ns':
      return { type: 'long', logicalType: 'timestamp-nanos', 'adjust-to-utc': type.kind === 'timestamptz_ns' };
    case 'uuid':
      return named('uuid_fixed', { type: 'fixed', name: 'uuid_fixed', size: 16, logicalType: 'uuid' });
    case 'fixed': {
      if (!('length' in type)) break;
      const name = `fixed_${type.length}`;
      return named(name, { type: 'fixed', name, size: type.length });
    }
    case 'decimal': {
      if (!('precision' in type)) break;
      const name = `decimal_${type.precision}_${type.scale}`;
      return named(name, {
        type: 'fixed',
        name,
        size: decimalRequiredBytes(type.precision),
        logicalType: 'decimal',
        precision: type.precision,
        scale: type.scale,
      });
    }
    case 'unknown':
      break;
  }
  throw new IcebergFormatError(`Type ${type.kind} cannot be a partition value in a manifest`);
}

/** Record r102: one optional field per partition field, `field-id` = partition field id. */
export function partitionRecordSchema(fields: readonly PartitionFieldType[]): AvroSchemaObject {
  const defined = new Set<string>();
  const names = new Set<string>();
  return {
    type: 'record',
    name: 'r102',
    fields: fields.map((f) => {
      const name = avroFieldName(f.name);
      if (names.has(name)) {
        throw new IcebergFormatError(`Partition field name '${f.name}' is not unique in the Avro schema`, {
          context: { partitionFieldId: f.fieldId },
        });
      }
      names.add(name);
      return optional(name, f.fieldId, partitionValueSchema(f.type, defined));
    }),
  };
}

/** `manifest_entry` (spec §3.2) for format version 2 or 3. */
export function manifestEntrySchema(
  formatVersion: ManifestFormatVersion,
  partitionFields: readonly PartitionFieldType[],
): AvroSchemaObject {
  const dataFileFields: AvroField[] = [
    required('content', 134, 'int'),
    required('file_path', 100, 'string'),
    required('file_format', 101, 'string'),
    required('partition', 102, partitionRecordSchema(partitionFields)),
    required('record_count', 103, 'long'),
    required('file_size_in_bytes', 104, 'long'),
    optional('column_sizes', 108, intMap(117, 118, 'long')),
    optional('value_counts', 109, intMap(119, 120, 'long')),
    optional('null_value_counts', 110, intMap(121, 122, 'long')),
    optional('nan_value_counts', 137, intMap(138, 139, 'long')),
    optional('lower_bounds', 125, intMap(126, 127, 'bytes')),
    optional('upper_bounds', 128, intMap(129, 130, 'bytes')),
    optional('key_metadata', 131, 'bytes'),
    optional('split_offsets', 132, { type: 'array', items: 'long', 'element-id': 133 }),
    optional('equality_ids', 135, { type: 'array', items: 'int', 'element-id': 136 }),
    optional('sort_order_id', 140, 'int'),
  ];
  if (formatVersion >= 3) dataFileFields.push(optional('first_row_id', 142, 'long'));
  // referenced_data_file is optional in v2 as well (position deletes may name their data file).
  dataFileFields.push(optional('referenced_data_file', 143, 'string'));
  if (formatVersion >= 3) {
    dataFileFields.push(optional('content_offset', 144, 'long'), optional('content_size_in_bytes', 145, 'long'));
  }
  return {
    type: 'record',
    name: 'manifest_entry',
    fields: [
      required('status', 0, 'int'),
      optional('snapshot_id', 1, 'long'),
      optional('sequence_number', 3, 'long'),
      optional('file_sequence_number', 4, 'long'),
      required('data_file', 2, { type: 'record', name: 'r2', fields: dataFileFields }),
    ],
  };
}

/** `manifest_file` (spec §3.1), the manifest list record, for format version 2 or 3. */
export function manifestFileSchema(formatVersion: ManifestFormatVersion): AvroSchemaObject {
  const fieldSummary: AvroSchemaObject = {
    type: 'record',
    name: 'r508',
    fields: [
      required('contains_null', 509, 'boolean'),
      optional('contains_nan', 518, 'boolean'),
      optional('lower_bound', 510, 'bytes'),
      optional('upper_bound', 511, 'bytes'),
    ],
  };
  const fields: AvroField[] = [
    required('manifest_path', 500, 'string'),
    required('manifest_length', 501, 'long'),
    required('partition_spec_id', 502, 'int'),
    required('content', 517, 'int'),
    required('sequence_number', 515, 'long'),
    required('min_sequence_number', 516, 'long'),
    required('added_snapshot_id', 503, 'long'),
    required('added_files_count', 504, 'int'),
    required('existing_files_count', 505, 'int'),
    required('deleted_files_count', 506, 'int'),
    required('added_rows_count', 512, 'long'),
    required('existing_rows_count', 513, 'long'),
    required('deleted_rows_count', 514, 'long'),
    optional('partitions', 507, { type: 'array', items: fieldSummary, 'element-id': 508 }),
    optional('key_metadata', 519, 'bytes'),
  ];
  if (formatVersion >= 3) fields.push(optional('first_row_id', 520, 'long'));
  return { type: 'record', name: 'manifest_file', fields };
}
