/**
 * Iceberg v3 types and column defaults below the table layer: type JSON round trips (ns
 * timestamps, unknown, variant, geometry, geography), default values in their JSON single-value
 * form (checked, and turned into values DuckDB casts back to the same value), the format-version
 * gate of schemas, single-value bounds and transforms of ns values, and the Parquet footer flag
 * of UTC-adjusted nanosecond columns (set and cleared on files DuckDB wrote, checked with
 * DuckDB's parquet_schema).
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbSession, quoteLiteral } from '../../../src/duckdb/session.js';
import { IcebergFormatError } from '../../../src/errors.js';
import { decodeSingleValue, encodeSingleValue } from '../../../src/iceberg/bounds.js';
import { defaultValueText, parseDefaultValue } from '../../../src/iceberg/default-values.js';
import { icebergToDuckDbType } from '../../../src/iceberg/duckdb-types.js';
import { applyUpdates, newTableMetadata } from '../../../src/iceberg/metadata-builder.js';
import { parseTableMetadata, serializeTableMetadata } from '../../../src/iceberg/metadata-json.js';
import { clearUtcNanosFlags, hasUtcNanos, markTimestamptzNanos, nanosTimestampColumns } from '../../../src/iceberg/parquet-utc-nanos.js';
import { formatVersionProblems, typeText } from '../../../src/iceberg/schema.js';
import { schemaUpdate } from '../../../src/iceberg/schema-update.js';
import { applyTransform } from '../../../src/iceberg/transforms/apply.js';
import { bucketHash } from '../../../src/iceberg/transforms/bucket.js';
import { transformResultType } from '../../../src/iceberg/transforms/result-type.js';
import { parseTransform } from '../../../src/iceberg/transforms/transform.js';
import { parseSchema, parseType, schemaToJson, typeToJson } from '../../../src/iceberg/type-json.js';
import { primitive, type IcebergType, type NestedField, type PrimitiveType, type Schema } from '../../../src/iceberg/types.js';

let session: DuckDbSession;
let dir: string;
beforeAll(async () => {
  session = await DuckDbSession.open({ threads: 1 });
  dir = mkdtempSync(join(tmpdir(), 'thund-v3-types-'));
});
afterAll(() => {
  session.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('v3 type JSON', () => {
  it('round-trips the v3 primitive types, geometry and geography with and without parameters', () => {
    const cases: [string, IcebergType][] = [
      ['timestamp_ns', { kind: 'timestamp_ns' }],
      ['timestamptz_ns', { kind: 'timestamptz_ns' }],
      ['unknown', { kind: 'unknown' }],
      ['variant', { kind: 'variant' }],
      ['geometry', { kind: 'geometry' }],
      ['geometry(srid:3857)', { kind: 'geometry', crs: 'srid:3857' }],
      ['geography', { kind: 'geography' }],
      ['geography(srid:4269)', { kind: 'geography', crs: 'srid:4269' }],
      ['geography(srid:4269, vincenty)', { kind: 'geography', crs: 'srid:4269', algorithm: 'vincenty' }],
    ];
    for (const [json, type] of cases) {
      expect(parseType(json, 'p'), json).toEqual(type);
      expect(typeToJson(type), json).toBe(json);
      expect(typeText(type), json).toBe(json);
    }
    // Java's patterns: case-insensitive names, spaces inside the parentheses.
    expect(parseType('GEOGRAPHY( OGC:CRS84 , Karney )', 'p')).toEqual({ kind: 'geography', crs: 'OGC:CRS84', algorithm: 'karney' });
    expect(() => parseType('geography(srid:4269, straight)', 'schemas[0].fields[1]')).toThrow(/unknown edge-interpolation algorithm "straight".*schemas\[0\]\.fields\[1\]/);
    expect(() => parseType('variant(1)', 'p')).toThrow(/unsupported Iceberg type "variant\(1\)"/);
  });

  it('parses a v3 table whose columns Thund cannot read, and serialises it back unchanged', () => {
    const json = {
      'format-version': 3,
      'table-uuid': '0b6f6a68-65aa-4e4e-b520-3f5d7b70c2a1',
      location: 's3://b/t',
      'last-sequence-number': 0,
      'last-updated-ms': 1750000000000,
      'last-column-id': 5,
      'current-schema-id': 0,
      schemas: [
        {
          type: 'struct',
          'schema-id': 0,
          fields: [
            { id: 1, name: 'v', required: false, type: 'variant' },
            { id: 2, name: 'shape', required: false, type: 'geometry(srid:3857)' },
            { id: 3, name: 'area', required: false, type: 'geography(srid:4269, karney)' },
            { id: 4, name: 'nothing', required: false, type: 'unknown' },
            { id: 5, name: 'at', required: false, type: 'timestamptz_ns', 'initial-default': '2020-01-01T00:00:00.000000001+00:00' },
          ],
        },
      ],
      'default-spec-id': 0,
      'partition-specs': [{ 'spec-id': 0, fields: [] }],
      'last-partition-id': 999,
      'default-sort-order-id': 0,
      'sort-orders': [{ 'order-id': 0, fields: [] }],
      'next-row-id': 0,
    };
    const metadata = parseTableMetadata(JSON.stringify(json), 'm.json');
    const fields = metadata.schemas[0]!.fields;
    expect(fields.map((f) => typeText(f.type))).toEqual(['variant', 'geometry(srid:3857)', 'geography(srid:4269, karney)', 'unknown', 'timestamptz_ns']);
    expect(JSON.parse(serializeTableMetadata(metadata))['schemas']).toEqual(json.schemas);
    expect(() => icebergToDuckDbType(fields[1]!.type, 'shape')).toThrow(/Column "shape" has type geometry\(srid:3857\), which cannot be read or written/);
  });

  it('keeps defaults as written (a long at -2^63 exactly) and refuses a default the type cannot take, naming where', () => {
    const schemaJson = {
      type: 'struct',
      'schema-id': 1,
      fields: [
        { id: 1, name: 'l', required: false, type: 'long', 'initial-default': -(2n ** 63n), 'write-default': -(2n ** 63n) },
        { id: 2, name: 'd', required: true, type: 'decimal(9, 2)', 'initial-default': '-0.50', 'write-default': '1.00' },
        { id: 3, name: 'u', required: false, type: 'unknown', 'initial-default': null },
      ],
    };
    const schema = parseSchema(schemaJson, 'schemas[1]');
    expect(schema.fields[0]!.initialDefault).toBe(-(2n ** 63n));
    expect(schemaToJson(schema)).toEqual(schemaJson);
    const bad = (type: string, value: unknown, message: RegExp): void => {
      const json = { type: 'struct', fields: [{ id: 1, name: 'c', required: false, type, 'initial-default': value }] };
      expect(() => parseSchema(json, 'schemas[0]'), `${type} ${String(value)}`).toThrow(IcebergFormatError);
      expect(() => parseSchema(json, 'schemas[0]'), `${type} ${String(value)}`).toThrow(message);
    };
    bad('int', 2 ** 31, /Invalid default value 2147483648 for type int at schemas\[0\]\.fields\[0\]\(c\)\.initial-default/);
    bad('int', '1', /expected a 32-bit integer/);
    bad('decimal(9, 2)', '1.234', /more than 2 digits after the point/);
    bad('decimal(3, 2)', '10.00', /more than 3 digits/);
    bad('date', '2023-02-29', /ISO date/);
    bad('timestamp', '2020-01-01T00:00:00+00:00', /without offset/);
    bad('timestamptz', '2020-01-01T00:00:00', /with an offset/);
    bad('timestamp_ns', '2263-01-01T00:00:00', /outside the range of 64-bit nanoseconds/);
    bad('uuid', 'not-a-uuid', /hex uuid/);
    bad('fixed[2]', '00', /expected 2 bytes/);
    bad('binary', 'xyz', /hex string/);
    bad('unknown', 1, /columns of type unknown can only default to null/);
    bad('variant', {}, /columns of type variant can only default to null/);
    bad({ type: 'struct', fields: [{ id: 2, name: 'x', required: false, type: 'int' }] } as unknown as string, { 9: 1 }, /9 is not a field id/);
  });
});

describe('default values in DuckDB', () => {
  /** [type, JSON default, the value DuckDB must give for the cast text, as canonical SQL text]. */
  const cases: [PrimitiveType, unknown, string, string][] = [
    [primitive('boolean'), false, 'v::VARCHAR', 'false'],
    [primitive('int'), -2147483648, 'v::VARCHAR', '-2147483648'],
    [primitive('long'), -(2n ** 63n), 'v::VARCHAR', '-9223372036854775808'],
    [primitive('float'), 0.1, 'v::DOUBLE::VARCHAR', String(Math.fround(0.1))],
    [primitive('double'), 1e-300, 'v::VARCHAR', '1e-300'],
    [{ kind: 'decimal', precision: 38, scale: 10 }, '-0.5', 'v::VARCHAR', '-0.5000000000'],
    [{ kind: 'decimal', precision: 5, scale: 0 }, '12345', 'v::VARCHAR', '12345'],
    [primitive('date'), '1582-10-04', "strftime(v, '%Y-%m-%d')", '1582-10-04'],
    [primitive('date'), '-0044-03-15', "(v - DATE '1970-01-01')::VARCHAR", '-735525'],
    [primitive('time'), '23:59:59.999999', 'epoch_us(v)::VARCHAR', '86399999999'],
    [primitive('time'), '10:00', 'epoch_us(v)::VARCHAR', '36000000000'],
    [primitive('timestamp'), '1969-12-31T23:59:59.999999', 'epoch_us(v)::VARCHAR', '-1'],
    [primitive('timestamptz'), '2017-11-16T14:31:08-08:00', 'epoch_us(v)::VARCHAR', '1510871468000000'],
    [primitive('timestamp_ns'), '1969-12-31T23:59:59.999999999', 'epoch_ns(v)::VARCHAR', '-1'],
    [primitive('timestamptz_ns'), '2017-11-16T14:31:08.000001001-08:00', 'epoch_ns(v)::VARCHAR', '1510871468000001001'],
    [primitive('timestamptz_ns'), '2262-04-11T23:47:16.854775806Z', 'epoch_ns(v)::VARCHAR', '9223372036854775806'],
    [primitive('string'), "it's \\x00 ünïcode", 'v', "it's \\x00 ünïcode"],
    [primitive('uuid'), 'F79C3E09-677C-4BBD-A479-3F349CB785E7', 'v::VARCHAR', 'f79c3e09-677c-4bbd-a479-3f349cb785e7'],
    [{ kind: 'fixed', length: 3 }, '00ff5c', 'hex(v)', '00FF5C'],
    [primitive('binary'), '', 'hex(v)', ''],
  ];

  it('casts the text of every primitive default back to the same value, whatever the session time zone', async () => {
    await session.run("SET TimeZone = 'Pacific/Chatham'");
    try {
      for (const [type, json, canonical, expected] of cases) {
        const value = parseDefaultValue(type, json, 'x');
        const text = defaultValueText(type, value);
        const [row] = await session.queryJson(`SELECT ${canonical} AS c FROM (SELECT CAST(${quoteLiteral(text)} AS ${icebergToDuckDbType(type)}) AS v)`);
        expect(row!['c'], `${typeText(type)} ${String(json)}`).toBe(expected);
      }
    } finally {
      await session.run("SET TimeZone = 'UTC'");
    }
  });

  it('gives the JS value forms of bounds.ts', () => {
    expect(parseDefaultValue(primitive('timestamptz_ns'), '1970-01-01T01:00:00.000000001+01:00', 'x')).toBe(1n);
    expect(parseDefaultValue(primitive('date'), '1970-01-02', 'x')).toBe(1);
    expect(parseDefaultValue({ kind: 'decimal', precision: 9, scale: 2 }, '-14.2', 'x')).toBe(-1420n);
    expect(parseDefaultValue(primitive('binary'), '0aff', 'x')).toEqual(Uint8Array.of(10, 255));
    expect(parseDefaultValue({ kind: 'list', elementId: 2, elementRequired: false, element: primitive('int') }, [1, null], 'x')).toEqual([1, null]);
  });
});

describe('format version of schemas', () => {
  const fields = (...extra: NestedField[]): NestedField[] => [{ id: 1, name: 'id', required: false, type: primitive('long') }, ...extra];

  it('lets only v3 tables hold the v3 types and non-null initial defaults, and unknown only optional', () => {
    for (const type of [primitive('timestamp_ns'), primitive('timestamptz_ns'), primitive('unknown'), primitive('variant'), { kind: 'geometry' } as IcebergType]) {
      const list: IcebergType = { kind: 'list', elementId: 3, elementRequired: false, element: type };
      const schema = { fields: fields({ id: 2, name: 'l', required: false, type: list }) };
      expect(formatVersionProblems(schema, 2), type.kind).toEqual([`Invalid type for l.element: ${typeText(type)} is not supported until v3 (create the table with format-version 3)`]);
      expect(formatVersionProblems(schema, 3), type.kind).toEqual([]);
    }
    expect(formatVersionProblems({ fields: fields({ id: 2, name: 'u', required: true, type: primitive('unknown') }) }, 3)).toEqual([
      'Invalid type for u: unknown columns must be optional',
    ]);
    const defaulted = { fields: fields({ id: 2, name: 'n', required: true, type: primitive('int'), initialDefault: 5, writeDefault: 5 }) };
    expect(formatVersionProblems(defaulted, 3)).toEqual([]);
    expect(formatVersionProblems(defaulted, 2)).toEqual(['Invalid initial default for n: non-null default is not supported until v3']);
    // A default the table already holds (written by another tool into a v2 table) stays allowed.
    expect(formatVersionProblems(defaulted, 2, [defaulted])).toEqual([]);
  });

  it('creates v3 tables with the v3 types, refuses them in v2, and evolves a v2 table that already holds defaults', () => {
    const schema: Schema = { schemaId: 0, identifierFieldIds: [], fields: fields({ id: 2, name: 'ts', required: false, type: primitive('timestamptz_ns') }) };
    expect(newTableMetadata({ location: 's3://b/t', schema, formatVersion: 3 }).schemas[0]!.fields[1]!.type).toEqual(primitive('timestamptz_ns'));
    expect(() => newTableMetadata({ location: 's3://b/t', schema })).toThrow(/Cannot create table: Invalid type for ts: timestamptz_ns is not supported until v3/);
    const v2WithDefault = newTableMetadata({ location: 's3://b/t', schema: { schemaId: 0, identifierFieldIds: [], fields: fields() }, formatVersion: 2 });
    const legacy = { ...v2WithDefault, schemas: [{ schemaId: 0, identifierFieldIds: [], fields: fields({ id: 2, name: 'n', required: false, type: primitive('int'), initialDefault: 1 }) }] };
    const evolved = schemaUpdate(legacy, [...legacy.schemas[0]!.fields, { id: 3, name: 'more', required: false, type: primitive('string') }]);
    expect(applyUpdates(legacy, evolved.updates).schemas).toHaveLength(2);
  });
});

describe('ns values: bounds and transforms', () => {
  const TSTZ_NS = primitive('timestamptz_ns');
  const NS = 1510871468000001001n; // 2017-11-16T22:31:08.000001001Z

  it('encodes ns bounds as 8-byte little-endian nanoseconds', () => {
    const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
    expect(hex(encodeSingleValue(TSTZ_NS, NS))).toBe('e9bb695f98b1f714');
    expect(decodeSingleValue(TSTZ_NS, encodeSingleValue(TSTZ_NS, NS))).toBe(NS);
    expect(hex(encodeSingleValue(TSTZ_NS, -1n))).toBe('ffffffffffffffff');
    expect(decodeSingleValue(primitive('timestamp_ns'), encodeSingleValue(primitive('timestamp_ns'), -(2n ** 63n)))).toBe(-(2n ** 63n));
    expect(() => encodeSingleValue(TSTZ_NS, 2n ** 63n)).toThrow(IcebergFormatError);
    expect(() => encodeSingleValue(primitive('variant'), 1)).toThrow(/no single-value encoding/);
  });

  it('transforms ns values on their µs floor, as the spec asks', () => {
    for (const type of [TSTZ_NS, primitive('timestamp_ns')]) {
      expect(applyTransform(parseTransform('year'), type, NS)).toBe(47);
      expect(applyTransform(parseTransform('month'), type, NS)).toBe(574);
      expect(applyTransform(parseTransform('day'), type, NS)).toBe(17486);
      expect(applyTransform(parseTransform('hour'), type, NS)).toBe(419686);
      expect(applyTransform(parseTransform('hour'), type, -1n)).toBe(-1);
      expect(applyTransform(parseTransform('day'), type, -999n)).toBe(-1);
      expect(bucketHash(type, NS)).toBe(-1207196810);
      // 999 ns and 0 ns are the same µs: the same bucket.
      expect(bucketHash(type, 999n)).toBe(bucketHash(primitive('timestamptz'), 0n));
      expect(applyTransform(parseTransform('identity'), type, NS)).toBe(NS);
    }
    for (const kind of ['truncate[10]'] as const) {
      expect(() => transformResultType(parseTransform(kind), TSTZ_NS, { partitionField: 'p' })).toThrow(IcebergFormatError);
    }
    for (const type of [primitive('unknown'), primitive('variant'), { kind: 'geography' } as PrimitiveType]) {
      expect(() => transformResultType(parseTransform('identity'), type, { partitionField: 'p' }), type.kind).toThrow(IcebergFormatError);
      expect(transformResultType(parseTransform('void'), type, { partitionField: 'p' })).toEqual(type);
    }
  });
});

describe('UTC flag of nanosecond Parquet columns', () => {
  async function write(name: string): Promise<string> {
    const path = join(dir, name);
    await session.run(
      `COPY (SELECT 1::INTEGER AS id, make_timestamp_ns(5) AS a, {'b': make_timestamp_ns(6), 'c': TIMESTAMP '2020-01-01'} AS st, [make_timestamp_ns(7)] AS li)` +
        ` TO ${quoteLiteral(path)} (FORMAT parquet, FIELD_IDS {id: 1, a: 2, st: {__duckdb_field_id: 3, b: 4, c: 5}, li: {__duckdb_field_id: 6, element: 7}})`,
    );
    return path;
  }

  async function logical(path: string): Promise<Record<string, string>> {
    const rows = await session.queryJson(`SELECT name, logical_type FROM parquet_schema(${quoteLiteral(path)}) WHERE logical_type LIKE 'Timestamp%'`);
    return Object.fromEntries(rows.map((r) => [String(r['name']), String(r['logical_type']).replace(/.*isAdjustedToUTC=(\d).*(MICROS|NANOS)=(?!<null>).*/, '$1 $2')]));
  }

  it('sets the flag on the timestamptz_ns columns of a file DuckDB wrote (nested too), changing one byte each and nothing else', async () => {
    const path = await write('flags.parquet');
    const before = readFileSync(path);
    expect(await logical(path)).toEqual({ a: '0 NANOS', b: '0 NANOS', c: '0 MICROS', element: '0 NANOS' });
    expect(await hasUtcNanos(path)).toBe(false);
    const schema: Pick<Schema, 'fields'> = {
      fields: [
        { id: 1, name: 'id', required: false, type: primitive('int') },
        { id: 2, name: 'a', required: false, type: primitive('timestamptz_ns') },
        { id: 3, name: 'st', required: false, type: { kind: 'struct', fields: [{ id: 4, name: 'b', required: false, type: primitive('timestamp_ns') }, { id: 5, name: 'c', required: false, type: primitive('timestamp') }] } },
        { id: 6, name: 'li', required: false, type: { kind: 'list', elementId: 7, elementRequired: false, element: primitive('timestamptz_ns') } },
      ],
    };
    await markTimestamptzNanos(schema, [path]);
    expect(await logical(path)).toEqual({ a: '1 NANOS', b: '0 NANOS', c: '0 MICROS', element: '1 NANOS' });
    const after = readFileSync(path);
    expect(after.length).toBe(before.length);
    expect([...after.keys()].filter((i) => after[i] !== before[i])).toHaveLength(2);
    expect((await nanosTimestampColumns(path)).map((c) => [c.name, c.fieldId, c.adjustedToUtc])).toEqual([
      ['a', 2, true],
      ['b', 4, false],
      ['element', 7, true],
    ]);
    // The data still reads (DuckDB now takes a as TIMESTAMPTZ), and clearing gives back the original bytes.
    const [row] = await session.queryJson(`SELECT typeof(a) AS t, id FROM read_parquet(${quoteLiteral(path)})`);
    expect(row).toEqual({ t: 'TIMESTAMP WITH TIME ZONE', id: 1 });
    expect(await clearUtcNanosFlags(path)).toBe(2);
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('leaves files that are not Parquet, or hold no such column, alone', async () => {
    const puffin = join(dir, 'x.puffin');
    writeFileSync(puffin, Buffer.from('PFA1 not parquet PFA1'));
    expect(await nanosTimestampColumns(puffin)).toEqual([]);
    expect(await clearUtcNanosFlags(puffin)).toBe(0);
    const plain = join(dir, 'plain.parquet');
    await session.run(`COPY (SELECT 1 AS x) TO ${quoteLiteral(plain)} (FORMAT parquet)`);
    const size = statSync(plain).size;
    expect(await hasUtcNanos(plain)).toBe(false);
    await markTimestamptzNanos({ fields: [{ id: 1, name: 'x', required: false, type: primitive('int') }] }, [plain]);
    expect(statSync(plain).size).toBe(size);
    // A footer cut short is a clear error, not a wrong answer.
    const broken = join(dir, 'broken.parquet');
    copyFileSync(await write('source.parquet'), broken);
    const bytes = readFileSync(broken);
    const length = bytes.readUInt32LE(bytes.length - 8);
    bytes.fill(0xff, bytes.length - 8 - length, bytes.length - 8 - length + 8);
    writeFileSync(broken, bytes);
    await expect(nanosTimestampColumns(broken)).rejects.toThrow(/Cannot read the Parquet footer/);
  });
});
