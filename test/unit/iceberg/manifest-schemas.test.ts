import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  avroFieldName,
  decimalRequiredBytes,
  manifestEntrySchema,
  manifestFileSchema,
  partitionRecordSchema,
} from '../../../src/iceberg/avro/manifest-schemas.js';
import { decimal, fixed, primitive } from '../../../src/iceberg/types.js';
import { parseHeader } from './avro-header.js';

const FIXTURES = resolve(process.cwd(), process.env.THUND_FIXTURES ?? '../shared/fixtures');
const RUST = join(FIXTURES, 'iceberg-rust/crates/iceberg/testdata');
const DUCK = join(FIXTURES, 'duckdb-iceberg/data/persistent');

type Json = Record<string, unknown>;
interface Field {
  name: string;
  'field-id': number;
  type: unknown;
}

function readJson(path: string): Json {
  return JSON.parse(readFileSync(path, 'utf8')) as Json;
}

function headerSchema(path: string): Json {
  return JSON.parse(parseHeader(readFileSync(path)).metadata['avro.schema']!) as Json;
}

function fieldsOf(record: unknown): Field[] {
  return (record as { fields: Field[] }).fields;
}

/** Drops `doc` attributes (Java writes them; they carry no meaning) and optionally `default`s. */
function stripDocs(value: unknown, drop: readonly string[] = ['doc']): unknown {
  if (Array.isArray(value)) return value.map((v) => stripDocs(v, drop));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).filter(([k]) => !drop.includes(k)).map(([k, v]) => [k, stripDocs(v, drop)]));
  }
  return value;
}

/** Every record field, array and map-entry record in the schema carries its Iceberg id. */
function assertIds(schema: unknown, path = '$'): number {
  let checked = 0;
  if (Array.isArray(schema)) {
    schema.forEach((s, i) => (checked += assertIds(s, `${path}[${i}]`)));
    return checked;
  }
  if (typeof schema !== 'object' || schema === null) return 0;
  const s = schema as Json;
  if (s['type'] === 'record') {
    for (const f of fieldsOf(s)) {
      expect(f['field-id'], `${path}.${f.name} has a field-id`).toEqual(expect.any(Number));
      checked += 1 + assertIds(f.type, `${path}.${f.name}`);
    }
  } else if (s['type'] === 'array') {
    if (s['logicalType'] !== 'map') {
      expect(s['element-id'], `${path} has an element-id`).toEqual(expect.any(Number));
      checked++;
    }
    checked += assertIds(s['items'], `${path}[]`);
  } else if (typeof s['type'] === 'object') {
    checked += assertIds(s['type'], path);
  }
  return checked;
}

describe('manifest_entry schema', () => {
  it('equals the Java-written v2 header of a decimal-partitioned manifest (docs aside)', () => {
    const dir = join(DUCK, 'partition_decimal_hugeint/metadata');
    const manifest = readdirSync(dir).find((f) => f.endsWith('-m0.avro'))!;
    const java = stripDocs(headerSchema(join(dir, manifest))) as Json;
    const ours = manifestEntrySchema(2, [{ fieldId: 1000, name: 'partition_col', type: decimal(36, 23) }]) as unknown as Json;
    // We also declare the optional referenced_data_file (143), which newer v2 writers carry.
    const dataFile = (fieldsOf(ours)[4]!.type as Json);
    const withoutRef = { ...ours, fields: [...fieldsOf(ours).slice(0, 4), { ...fieldsOf(ours)[4], type: { ...dataFile, fields: fieldsOf(dataFile).filter((f) => f['field-id'] !== 143) } }] };
    expect(withoutRef).toEqual(java);
  });

  it('matches the field ids, names and order of iceberg-rust avro_schema_manifest_entry.json', () => {
    const rust = readJson(join(RUST, 'avro_schema_manifest_entry.json'));
    const ours = manifestEntrySchema(2, []);
    const ourTop = new Map(fieldsOf(ours).map((f) => [f['field-id'], f.name]));
    for (const f of fieldsOf(rust)) expect(ourTop.get(f['field-id'])).toBe(f.name);
    const rustFile = fieldsOf(fieldsOf(rust).find((f) => f.name === 'data_file')!.type);
    const ourFile = fieldsOf(fieldsOf(ours).find((f) => f.name === 'data_file')!.type);
    // 105 block_size_in_bytes is v1-only; everything else appears with the same name and type.
    const shared = rustFile.filter((f) => f['field-id'] !== 105 && f['field-id'] !== 102);
    const ourById = new Map(ourFile.map((f) => [f['field-id'], f]));
    for (const f of shared) {
      const mine = ourById.get(f['field-id'])!;
      expect(mine.name).toBe(f.name);
      expect(stripDocs(mine.type)).toEqual(stripDocs(f.type));
    }
    const order = ourFile.map((f) => f['field-id']).filter((id) => shared.some((f) => f['field-id'] === id));
    expect(order).toEqual(shared.map((f) => f['field-id']));
  });

  it('v3 adds 142, 143, 144, 145 after sort_order_id, as PyIceberg writes them', () => {
    const ids = fieldsOf(fieldsOf(manifestEntrySchema(3, [])).find((f) => f.name === 'data_file')!.type).map((f) => f['field-id']);
    expect(ids).toEqual([134, 100, 101, 102, 103, 104, 108, 109, 110, 137, 125, 128, 131, 132, 135, 140, 142, 143, 144, 145]);
    const dir = join(DUCK, 'legacy_bare_deletion_vector/warehouse/default/legacy_bare_deletion_vector/metadata');
    const py = headerSchema(join(dir, 'legacy-bare-deletion-vector-m0.avro'));
    const pyIds = fieldsOf(fieldsOf(py).find((f) => f.name === 'data_file')!.type).map((f) => f['field-id']);
    expect(ids).toEqual(pyIds);
  });

  it('carries an id on every field, list element and map key/value', () => {
    const all = [decimal(9, 2), primitive('date'), primitive('uuid'), fixed(3), primitive('timestamptz')];
    const schema = manifestEntrySchema(3, all.map((type, i) => ({ fieldId: 1000 + i, name: `p${i}`, type })));
    expect(assertIds(schema)).toBeGreaterThan(40);
    const text = JSON.stringify(schema);
    for (const id of [117, 118, 119, 120, 121, 122, 138, 139, 126, 127, 129, 130]) expect(text).toContain(`"field-id":${id}`);
    expect(text).toContain('"element-id":133');
    expect(text).toContain('"element-id":136');
  });
});

describe('partition record r102', () => {
  it('maps result types to their Avro forms (ICEBERG.md §2.3)', () => {
    const types = [
      primitive('boolean'), primitive('int'), primitive('long'), primitive('float'), primitive('double'),
      decimal(9, 2), decimal(38, 10), primitive('date'), primitive('time'), primitive('timestamp'),
      primitive('timestamptz'), primitive('timestamp_ns'), primitive('timestamptz_ns'), primitive('string'),
      primitive('uuid'), fixed(7), primitive('binary'), decimal(9, 2),
    ];
    const record = partitionRecordSchema(types.map((type, i) => ({ fieldId: 1000 + i, name: `f${i}`, type })));
    const avro = fieldsOf(record).map((f) => (f.type as unknown[])[1]);
    expect(fieldsOf(record).map((f) => f['field-id'])).toEqual(types.map((_, i) => 1000 + i));
    expect(avro).toEqual([
      'boolean', 'int', 'long', 'float', 'double',
      { type: 'fixed', name: 'decimal_9_2', size: 4, logicalType: 'decimal', precision: 9, scale: 2 },
      { type: 'fixed', name: 'decimal_38_10', size: 16, logicalType: 'decimal', precision: 38, scale: 10 },
      { type: 'int', logicalType: 'date' },
      { type: 'long', logicalType: 'time-micros' },
      { type: 'long', logicalType: 'timestamp-micros', 'adjust-to-utc': false },
      { type: 'long', logicalType: 'timestamp-micros', 'adjust-to-utc': true },
      { type: 'long', logicalType: 'timestamp-nanos', 'adjust-to-utc': false },
      { type: 'long', logicalType: 'timestamp-nanos', 'adjust-to-utc': true },
      'string',
      { type: 'fixed', name: 'uuid_fixed', size: 16, logicalType: 'uuid' },
      { type: 'fixed', name: 'fixed_7', size: 7 },
      'bytes',
      'decimal_9_2', // a named type is defined once, then referenced
    ]);
  });

  it('uses the minimum fixed width for each precision (ICEBERG.md table)', () => {
    const table: [number, number][] = [[1, 1], [2, 1], [3, 2], [9, 4], [10, 5], [18, 8], [19, 9], [28, 12], [29, 13], [38, 16]];
    for (const [p, bytes] of table) expect(decimalRequiredBytes(p)).toBe(bytes);
  });

  it('makes partition names valid Avro names', () => {
    expect(avroFieldName('ts_day')).toBe('ts_day');
    expect(avroFieldName('1col')).toBe('_1col');
    expect(avroFieldName('a-b c')).toBe('a_x2Db_x20c');
  });
});

describe('manifest_file schema', () => {
  it('matches iceberg-rust avro_schema_manifest_file_v2.json ids, names and order', () => {
    const rust = fieldsOf(readJson(join(RUST, 'avro_schema_manifest_file_v2.json')));
    const ours = fieldsOf(manifestFileSchema(2));
    expect(ours.map((f) => [f['field-id'], f.name])).toEqual([...rust.map((f) => [f['field-id'], f.name]), [519, 'key_metadata']]);
    // iceberg-rust's file declares the v2-required sequence numbers nullable; the spec makes them
    // required longs. It also omits the reader-side `default: null` of optional fields.
    const drop = ['doc', 'default'];
    for (const f of rust.filter((r) => r['field-id'] !== 515 && r['field-id'] !== 516)) {
      expect(stripDocs(ours.find((o) => o['field-id'] === f['field-id'])!.type, drop)).toEqual(stripDocs(f.type, drop));
    }
    expect(ours.find((f) => f.name === 'sequence_number')!.type).toBe('long');
  });

  it('has the Java-written v2 list layout (types and ids; Java names counts added_data_files_count)', () => {
    const dir = join(DUCK, 'partition_integer/metadata');
    const java = fieldsOf(headerSchema(join(dir, readdirSync(dir).find((f) => f.startsWith('snap-'))!)));
    const ours = fieldsOf(manifestFileSchema(2));
    expect(ours.slice(0, java.length).map((f) => [f['field-id'], stripDocs(f.type)])).toEqual(java.map((f) => [f['field-id'], stripDocs(f.type)]));
  });

  it('v3 appends first_row_id 520 and every field has an id', () => {
    const v3 = manifestFileSchema(3);
    expect(fieldsOf(v3).at(-1)).toEqual({ name: 'first_row_id', type: ['null', 'long'], default: null, 'field-id': 520 });
    expect(assertIds(v3)).toBe(21);
  });
});
