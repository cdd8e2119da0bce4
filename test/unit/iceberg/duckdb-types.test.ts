import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IcebergFormatError, InvalidInputError } from '../../../src/errors.js';
import {
  castToColumnSql,
  duckDbColumnsToFields,
  duckDbTypeToIceberg,
  fieldIdsClause,
  icebergToDuckDbType,
  parseDuckDbType,
  withoutUnknownColumns,
} from '../../../src/iceberg/duckdb-types.js';
import { assignFreshIds, type UnassignedType } from '../../../src/iceberg/schema.js';
import type { IcebergType, NestedField } from '../../../src/iceberg/types.js';

let conn: DuckDBConnection;
let dir: string;

beforeAll(async () => {
  const db = await DuckDBInstance.create(':memory:');
  conn = await db.connect();
  dir = mkdtempSync(join(tmpdir(), 'thund-duckdb-types-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function rows(sql: string): Promise<Record<string, unknown>[]> {
  return (await conn.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
}

async function describeQuery(query: string): Promise<Array<{ name: string; type: string; nullable: boolean }>> {
  const r = await rows(`DESCRIBE ${query}`);
  return r.map((x) => ({ name: String(x['column_name']), type: String(x['column_type']), nullable: x['null'] !== 'NO' }));
}

/** The SELECT used for the Parquet checks: one column per supported DuckDB type, odd names included. */
const ALL_TYPES_QUERY = `SELECT
  true AS b, 1::TINYINT AS ti, 1::SMALLINT AS si, 1::INTEGER AS i, 1::BIGINT AS bi,
  1::UTINYINT AS ut, 1::USMALLINT AS us, 1::UINTEGER AS ui,
  1.5::FLOAT AS f, 1.5::DOUBLE AS d, 1.25::DECIMAL(4,2) AS d4, 1::DECIMAL(38,10) AS d38,
  DATE '2020-01-01' AS dt, TIME '10:00:00' AS tm, TIMESTAMP '2020-01-01 10:00:00' AS ts,
  TIMESTAMPTZ '2020-01-01 10:00:00+00' AS tstz, '2020-01-01'::TIMESTAMP_NS AS tsns,
  '2020-01-01'::TIMESTAMP_MS AS tsms, '2020-01-01'::TIMESTAMP_S AS tss,
  'x' AS "we ird, ""name""", 'abc'::BLOB AS bl, uuid 'f79c3e09-677c-4bbd-a479-3f349cb785e7' AS u,
  {'x': 1, 'y': 'a', 'a b,c': [1.5]} AS st, [1, 2] AS li, MAP {'k': {'z': 1}} AS mp,
  [[{'q': 1}]] AS lls, 'a'::ENUM('a','b') AS en`;

describe('parseDuckDbType', () => {
  it('parses nested type text with quoted names holding spaces, commas, quotes and parentheses', () => {
    const node = parseDuckDbType('STRUCT("a b" INTEGER, "c,d" VARCHAR, "e""f" FLOAT[], "g(h)" MAP(VARCHAR, STRUCT(z TIMESTAMP WITH TIME ZONE)))[]');
    expect(node).toEqual({
      t: 'list',
      element: {
        t: 'struct',
        name: 'STRUCT',
        fields: [
          { name: 'a b', type: { t: 'named', name: 'INTEGER', params: [] } },
          { name: 'c,d', type: { t: 'named', name: 'VARCHAR', params: [] } },
          { name: 'e"f', type: { t: 'list', element: { t: 'named', name: 'FLOAT', params: [] } } },
          {
            name: 'g(h)',
            type: {
              t: 'map',
              key: { t: 'named', name: 'VARCHAR', params: [] },
              value: {
                t: 'struct',
                name: 'STRUCT',
                fields: [{ name: 'z', type: { t: 'named', name: 'TIMESTAMP WITH TIME ZONE', params: [] } }],
              },
            },
          },
        ],
      },
    });
    expect(parseDuckDbType("ENUM('a,)', 'b''c')")).toEqual({ t: 'named', name: 'ENUM', params: ["'a,)'", "'b''c'"] });
    expect(parseDuckDbType('INTEGER[3][]')).toEqual({
      t: 'list',
      element: { t: 'list', element: { t: 'named', name: 'INTEGER', params: [] }, size: 3 },
    });
    expect(() => parseDuckDbType('STRUCT(a INTEGER')).toThrow(InvalidInputError);
  });

  it('maps every DESCRIBE type of a real DuckDB query to Iceberg', async () => {
    const cols = await describeQuery(ALL_TYPES_QUERY);
    const byName = Object.fromEntries(duckDbColumnsToFields(cols).map((f) => [f.name, f.type]));
    expect(byName).toEqual({
      b: { kind: 'boolean' }, ti: { kind: 'int' }, si: { kind: 'int' }, i: { kind: 'int' }, bi: { kind: 'long' },
      ut: { kind: 'int' }, us: { kind: 'int' }, ui: { kind: 'long' },
      f: { kind: 'float' }, d: { kind: 'double' },
      d4: { kind: 'decimal', precision: 4, scale: 2 }, d38: { kind: 'decimal', precision: 38, scale: 10 },
      dt: { kind: 'date' }, tm: { kind: 'time' }, ts: { kind: 'timestamp' }, tstz: { kind: 'timestamptz' },
      tsns: { kind: 'timestamp_ns' }, tsms: { kind: 'timestamp' }, tss: { kind: 'timestamp' },
      'we ird, "name"': { kind: 'string' }, bl: { kind: 'binary' }, u: { kind: 'uuid' },
      st: { kind: 'struct', fields: [
        { name: 'x', required: false, type: { kind: 'int' } },
        { name: 'y', required: false, type: { kind: 'string' } },
        { name: 'a b,c', required: false, type: { kind: 'list', elementRequired: false, element: { kind: 'decimal', precision: 2, scale: 1 } } },
      ] },
      li: { kind: 'list', elementRequired: false, element: { kind: 'int' } },
      mp: { kind: 'map', key: { kind: 'string' }, valueRequired: false, value: { kind: 'struct', fields: [
        { name: 'z', required: false, type: { kind: 'int' } }] } },
      lls: { kind: 'list', elementRequired: false, element: { kind: 'list', elementRequired: false, element: {
        kind: 'struct', fields: [{ name: 'q', required: false, type: { kind: 'int' } }] } } },
      en: { kind: 'string' },
    });
  });

  it('rejects types Iceberg cannot store, naming the column', async () => {
    const cols = await describeQuery(`SELECT 1::UBIGINT AS ub, 1::HUGEINT AS hi, INTERVAL 1 DAY AS iv, '101'::BIT AS bt,
      '10:00+02'::TIMETZ AS ttz, union_value(k := 1) AS un, [1,2,3]::INTEGER[3] AS arr, {'s': 1::UBIGINT} AS nested`);
    for (const c of cols) {
      expect(() => duckDbTypeToIceberg(c.type, c.name), c.type).toThrow(InvalidInputError);
      expect(() => duckDbTypeToIceberg(c.type, c.name), c.type).toThrow(new RegExp(`column "${c.name}`));
    }
    expect(() => duckDbTypeToIceberg('STRUCT(s UBIGINT)', 'nested')).toThrow(/column "nested\.s"/);
  });

  it('turns NOT NULL columns into required fields', () => {
    expect(duckDbColumnsToFields([{ name: 'a', type: 'INTEGER', nullable: false }])[0]!.required).toBe(true);
    expect(duckDbColumnsToFields([{ name: 'a', type: 'INTEGER' }])[0]!.required).toBe(false);
  });
});

describe('icebergToDuckDbType', () => {
  const samples: UnassignedType[] = [
    { kind: 'boolean' }, { kind: 'int' }, { kind: 'long' }, { kind: 'float' }, { kind: 'double' },
    { kind: 'decimal', precision: 38, scale: 9 }, { kind: 'date' }, { kind: 'time' }, { kind: 'timestamp' },
    { kind: 'timestamptz' }, { kind: 'timestamp_ns' }, { kind: 'string' }, { kind: 'uuid' }, { kind: 'binary' },
    { kind: 'struct', fields: [{ name: 'we "ird", x', required: false, type: { kind: 'int' } }] },
    { kind: 'list', elementRequired: false, element: { kind: 'map', key: { kind: 'string' }, valueRequired: false, value: { kind: 'date' } } },
  ];
  it('gives CAST targets that DuckDB accepts and that map back to the same Iceberg type', async () => {
    for (const t of samples) {
      const [col] = await describeQuery(`SELECT CAST(NULL AS ${icebergToDuckDbType(t)}) AS c`);
      expect(duckDbTypeToIceberg(col!.type, 'c'), col!.type).toEqual(t);
    }
  });
  it('maps fixed to BLOB, both ns timestamps to TIMESTAMP_NS and unknown to the NULL type', async () => {
    expect(icebergToDuckDbType({ kind: 'fixed', length: 4 })).toBe('BLOB');
    expect(icebergToDuckDbType({ kind: 'timestamptz_ns' })).toBe('TIMESTAMP_NS');
    expect(icebergToDuckDbType({ kind: 'timestamp_ns' })).toBe('TIMESTAMP_NS');
    const [c] = await rows(`SELECT typeof(CAST(NULL AS ${icebergToDuckDbType({ kind: 'unknown' })})) AS t`);
    expect(c!['t']).toBe('"NULL"');
    // A struct member of type unknown is left out (it is never written).
    const struct: UnassignedType = {
      kind: 'struct',
      fields: [
        { name: 'a', required: false, type: { kind: 'int' } },
        { name: 'u', required: false, type: { kind: 'unknown' } },
      ],
    };
    expect(icebergToDuckDbType(struct)).toBe('STRUCT("a" INTEGER)');
  });

  it('refuses variant, geometry and geography, naming the column and the type', () => {
    const cases: [IcebergType, RegExp][] = [
      [{ kind: 'variant' }, /Column "v" has type variant/],
      [{ kind: 'geometry', crs: 'srid:3857' }, /Column "v" has type geometry\(srid:3857\)/],
      [{ kind: 'geography', algorithm: 'karney' }, /Column "v" has type geography\(OGC:CRS84, karney\)/],
    ];
    for (const [type, message] of cases) {
      expect(() => icebergToDuckDbType(type, 'v')).toThrow(IcebergFormatError);
      expect(() => icebergToDuckDbType(type, 'v')).toThrow(message);
    }
    const nested: IcebergType = { kind: 'list', elementId: 2, elementRequired: false, element: { kind: 'variant' } };
    expect(() => icebergToDuckDbType(nested, 'events')).toThrow(/Column "events\.element" has type variant/);
    const schema = { fields: [{ id: 1, name: 'st', required: false, type: { kind: 'struct', fields: [{ id: 2, name: 'g', required: false, type: { kind: 'geometry' } }] } }] } as const;
    expect(() => fieldIdsClause(schema as unknown as { fields: NestedField[] })).toThrow(/Column "st\.g" has type geometry/);
  });
});

describe('castToColumnSql and withoutUnknownColumns', () => {
  const TS_NS: IcebergType = { kind: 'timestamp_ns' };
  const TSTZ_NS: IcebergType = { kind: 'timestamptz_ns' };

  it('keeps nanoseconds and takes a TIMESTAMPTZ source at UTC whatever the session time zone', async () => {
    await conn.run("SET TimeZone = 'Asia/Kolkata'");
    try {
      const [r] = await rows(
        `SELECT CAST(${castToColumnSql("TIMESTAMP_NS '2262-04-11 23:47:16.854775806'", TS_NS, 'a', TS_NS)} AS VARCHAR) AS a,` +
          ` CAST(${castToColumnSql("TIMESTAMPTZ '2020-01-01 00:00:00.123456+00'", TSTZ_NS, 'b', { kind: 'timestamptz' })} AS VARCHAR) AS b,` +
          ` CAST(${castToColumnSql("TIMESTAMP '1677-09-22 00:00:00'", TS_NS, 'c', { kind: 'timestamp' })} AS VARCHAR) AS c,` +
          ` CAST(${castToColumnSql("'2020-01-01T05:30:00.000000001+05:30'", TSTZ_NS, 'd')} AS VARCHAR) AS d,` +
          ` ${castToColumnSql('NULL', TSTZ_NS, 'e')} AS e`,
      );
      expect(r).toEqual({
        a: '2262-04-11 23:47:16.854775806',
        b: '2020-01-01 00:00:00.123456',
        c: '1677-09-22 00:00:00',
        d: '2020-01-01 00:00:00.000000001',
        e: null,
      });
    } finally {
      await conn.run("SET TimeZone = 'UTC'");
    }
  });

  it('refuses a value outside the nanosecond range, naming the column', async () => {
    for (const [source, from] of [
      ["TIMESTAMP '1677-09-21 23:59:59.999999'", { kind: 'timestamp' }],
      ["TIMESTAMP '2262-04-11 23:47:16.854776'", { kind: 'timestamp' }],
      ["TIMESTAMPTZ '3000-01-01 00:00:00+00'", { kind: 'timestamptz' }],
      ["'1500-01-01T00:00:00+00:00'", undefined],
      // Held by DuckDB, but not printable (its RETURN_STATS would fail without naming the column).
      ['make_timestamp_ns(-9223372036854775000)', { kind: 'timestamp_ns' }],
    ] as const) {
      const sql = `SELECT ${castToColumnSql(`x`, TSTZ_NS, 'event time', from)} FROM (SELECT ${source} AS x)`;
      await expect(rows(sql), source).rejects.toThrow(/column "event time" is of type timestamptz_ns, whose values Thund writes from 1677-09-22 00:00:00 to 2262-04-11/);
    }
    const [ok] = await rows(`SELECT CAST(${castToColumnSql('x', TS_NS, 'n', TS_NS)} AS VARCHAR) AS v FROM (SELECT make_timestamp_ns(-9223286400000000000) AS x)`);
    expect(ok).toEqual({ v: '1677-09-22 00:00:00' });
  });

  it('drops top-level unknown columns from a written query', async () => {
    const fields: NestedField[] = [
      { id: 1, name: 'a', required: false, type: { kind: 'int' } },
      { id: 2, name: 'u u', required: false, type: { kind: 'unknown' } },
    ];
    expect(withoutUnknownColumns({ fields: [fields[0]!] }, 'SELECT 1 AS a')).toBe('SELECT 1 AS a');
    const [r] = await rows(withoutUnknownColumns({ fields }, `SELECT 1 AS a, CAST(NULL AS "NULL") AS "u u"`));
    expect(r).toEqual({ a: 1 });
    expect(() => withoutUnknownColumns({ fields: [fields[1]!] }, 'SELECT NULL AS "u u"')).toThrow(IcebergFormatError);
  });
});

interface ParquetElement {
  path: string;
  name: string;
  type: string | null;
  typeLength: string | null;
  logicalType: string | null;
  fieldId: number | null;
}

async function parquetElements(file: string): Promise<ParquetElement[]> {
  const r = await rows(`SELECT name, type, type_length, logical_type, field_id, num_children FROM parquet_schema('${file}')`);
  const out: ParquetElement[] = [];
  // parquet_schema lists elements depth first; rebuild paths from num_children.
  const stack: Array<{ path: string; left: number }> = [];
  r.forEach((row, i) => {
    while (stack.length > 0 && stack[stack.length - 1]!.left === 0) stack.pop();
    const parent = stack[stack.length - 1];
    if (parent) parent.left--;
    const name = String(row['name']);
    const path = i === 0 ? '' : parent && parent.path !== '' ? `${parent.path}/${name}` : name;
    const children = Number(row['num_children'] ?? 0);
    if (children > 0) stack.push({ path, left: children });
    if (i === 0) return;
    out.push({
      path,
      name,
      type: row['type'] as string | null,
      typeLength: row['type_length'] as string | null,
      logicalType: row['logical_type'] as string | null,
      fieldId: row['field_id'] === null ? null : Number(row['field_id']),
    });
  });
  return out;
}

/** Parquet element path → expected field id, following the spec's 3-level list / map layout. */
function expectedIds(fields: readonly NestedField[], prefix = ''): Map<string, number | null> {
  const out = new Map<string, number | null>();
  const visit = (t: IcebergType, path: string): void => {
    if (t.kind === 'struct') for (const [k, v] of expectedIds(t.fields, `${path}/`)) out.set(k, v);
    else if (t.kind === 'list') {
      out.set(`${path}/list`, null);
      out.set(`${path}/list/element`, t.elementId);
      visit(t.element, `${path}/list/element`);
    } else if (t.kind === 'map') {
      out.set(`${path}/key_value`, null);
      out.set(`${path}/key_value/key`, t.keyId);
      out.set(`${path}/key_value/value`, t.valueId);
      visit(t.key, `${path}/key_value/key`);
      visit(t.value, `${path}/key_value/value`);
    }
  };
  for (const f of fields) {
    out.set(prefix + f.name, f.id);
    visit(f.type, prefix + f.name);
  }
  return out;
}

describe('fieldIdsClause with real DuckDB Parquet files', () => {
  it('stamps every struct field, list element and map key/value; wrapper groups get none', async () => {
    const cols = await describeQuery(ALL_TYPES_QUERY);
    const { fields } = assignFreshIds(duckDbColumnsToFields(cols));
    const casts = fields.map((f) => `CAST("${f.name.replaceAll('"', '""')}" AS ${icebergToDuckDbType(f.type)}) AS "${f.name.replaceAll('"', '""')}"`);
    const file = join(dir, 'ids.parquet');
    await conn.run(`COPY (SELECT ${casts.join(', ')} FROM (${ALL_TYPES_QUERY})) TO '${file}' (FORMAT parquet, ${fieldIdsClause({ fields })})`);
    const elements = await parquetElements(file);
    const expected = expectedIds(fields);
    expect(new Map(elements.map((e) => [e.path, e.fieldId]))).toEqual(expected);
    expect(Math.max(...[...expected.values()].map((v) => v ?? 0))).toBeGreaterThan(30);
  });

  it('writes TIMESTAMP with isAdjustedToUTC=false, TIMESTAMPTZ with true, UUID as FIXED_LEN_BYTE_ARRAY(16)+UUID', async () => {
    const file = join(dir, 'types.parquet');
    await conn.run(`COPY (SELECT TIMESTAMP '2020-01-01' AS ts, TIMESTAMPTZ '2020-01-01 00:00:00+00' AS tstz,
      '2020-01-01'::TIMESTAMP_NS AS tsns, TIME '01:02:03' AS tm, gen_random_uuid() AS u, 1.5::DECIMAL(38,2) AS d38,
      1.5::DECIMAL(9,2) AS d9, 1.5::DECIMAL(18,2) AS d18, DATE '2020-01-01' AS dt)
      TO '${file}' (FORMAT parquet, FIELD_IDS {ts: 1, tstz: 2, tsns: 3, tm: 4, u: 5, d38: 6, d9: 7, d18: 8, dt: 9})`);
    const el = Object.fromEntries((await parquetElements(file)).map((e) => [e.name, e]));
    expect(el['ts']!.type).toBe('INT64');
    expect(el['ts']!.logicalType).toMatch(/TimestampType\(isAdjustedToUTC=0, unit=.*MICROS=MicroSeconds\(\)/);
    expect(el['tstz']!.logicalType).toMatch(/TimestampType\(isAdjustedToUTC=1, unit=.*MICROS=MicroSeconds\(\)/);
    expect(el['tsns']!.logicalType).toMatch(/TimestampType\(isAdjustedToUTC=0, unit=.*NANOS=NanoSeconds\(\)/);
    expect(el['tm']!.logicalType).toMatch(/TimeType\(isAdjustedToUTC=0, unit=.*MICROS=MicroSeconds\(\)/);
    expect([el['u']!.type, el['u']!.typeLength, el['u']!.logicalType]).toEqual(['FIXED_LEN_BYTE_ARRAY', '16', 'UUIDType()']);
    // Iceberg's decimal mapping: P ≤ 9 INT32, P ≤ 18 INT64, else FIXED with the minimum bytes (16 for 38).
    expect([el['d9']!.type, el['d18']!.type, el['d38']!.type, el['d38']!.typeLength]).toEqual(['INT32', 'INT64', 'FIXED_LEN_BYTE_ARRAY', '16']);
    expect(el['dt']!.type).toBe('INT32');
    expect(Object.values(el).map((e) => e.fieldId)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});
