/**
 * Iceberg v3 types and column defaults through Thund's table write and scan path (local
 * warehouse: SQLite catalog, local files, DuckDB):
 * - timestamp_ns / timestamptz_ns written with nanoseconds, the Parquet UTC flag per type
 *   (checked with DuckDB's parquet_schema), exact 8-byte bounds, partition tuples that match the
 *   TypeScript transforms row by row, and read back to the nanosecond; unknown columns read as
 *   NULL and are left out of the files; the v3 types refused in v2 tables;
 * - initial-default read for files written before a column was added, write-default written
 *   where a flow leaves the column out;
 * - the foreign fixtures (THUND_FIXTURES): `add_columns_with_defaults` (pyiceberg) read with its
 *   defaults, the expected rows taken from the metadata JSON and from DuckDB reading the files
 *   by name; `timestamptz_ns` (a v3 table with year/month/day/hour on a timestamptz_ns column)
 *   parsed, scanned, and its schema and spec written and read back exactly.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TableIdentifier } from '../../../catalog/catalog.js';
import { fromFileUri } from '../../../connectors/storage/local-file-io.js';
import { quoteLiteral } from '../../../src/duckdb/session.js';
import { describeFlow, projectEvolved } from '../../../src/engine/flow-output.js';
import { IcebergFormatError } from '../../../src/errors.js';
import { decodeSingleValue } from '../../../src/iceberg/bounds.js';
import type { DataFile } from '../../../src/iceberg/data-file.js';
import type { FileIO } from '../../../src/iceberg/file-io.js';
import { readTableMetadata } from '../../../src/iceberg/metadata-json.js';
import { assignFreshIds } from '../../../src/iceberg/schema.js';
import { evolveSchema } from '../../../src/iceberg/schema-evolution.js';
import { schemaUpdate } from '../../../src/iceberg/schema-update.js';
import { currentSchema } from '../../../src/iceberg/snapshot-ancestry.js';
import type { PartitionSpec, TableMetadata } from '../../../src/iceberg/table-metadata.js';
import { bindTransform } from '../../../src/iceberg/transforms/apply.js';
import { parseTransform } from '../../../src/iceberg/transforms/transform.js';
import { primitive, type NestedField, type Schema } from '../../../src/iceberg/types.js';
import { commitSnapshot } from '../../../src/table/commit-snapshot.js';
import { dataLocation } from '../../../src/table/locations.js';
import { FILE_COLUMN } from '../../../src/table/read-rows.js';
import { openTableRows } from '../../../src/table/table-rows.js';
import { writeDataFiles } from '../../../src/write/data-file-writer.js';
import { writePartitionedDataFiles } from '../../../src/write/partitioned-data-file-writer.js';
import { openLocalWarehouse, type LocalWarehouse } from '../local-warehouse.js';

const ID: TableIdentifier = { namespace: ['db'], name: 't' };
const V3 = { 'format-version': '3' };
const FIXTURES = resolve(process.cwd(), process.env.THUND_FIXTURES ?? '../shared/fixtures');
const DUCK_ROOT = join(FIXTURES, 'duckdb-iceberg');
const PERSISTENT = join(DUCK_ROOT, 'data/persistent');

let warehouse: LocalWarehouse;
beforeEach(async () => {
  warehouse = await openLocalWarehouse({ prefix: 'v3-types', namespaces: [['db']] });
});
afterEach(() => warehouse.close());

async function loaded(): Promise<TableMetadata> {
  return (await warehouse.catalog.loadTable(ID)).metadata;
}

async function append(files: DataFile[]): Promise<void> {
  await commitSnapshot({ catalog: warehouse.catalog, identifier: ID, base: { metadata: await loaded(), io: warehouse.io, create: false }, mode: 'append', addedFiles: files });
}

async function scan(select: string, orderBy: string, metadata?: TableMetadata, io: FileIO = warehouse.io): Promise<Record<string, unknown>[]> {
  const rows = await openTableRows({ session: warehouse.session, io, metadata: metadata ?? (await loaded()) });
  try {
    return await warehouse.session.queryJson(`SELECT ${select} FROM (${rows.sql}) ORDER BY ${orderBy}`);
  } finally {
    await rows.release();
  }
}

/** What DuckDB's parquet_schema says of a file's leaf columns: name → [field id, logical type]. */
async function parquetColumns(file: DataFile): Promise<Map<string, [number | null, string | null]>> {
  const rows = await warehouse.session.queryJson(
    `SELECT name, field_id::INTEGER AS field_id, logical_type FROM parquet_schema(${quoteLiteral(fromFileUri(file.filePath))}) WHERE num_children IS NULL OR num_children = 0`,
  );
  return new Map(rows.map((r) => [String(r['name']), [r['field_id'] === null ? null : Number(r['field_id']), r['logical_type'] === null ? null : String(r['logical_type'])]]));
}

const NANOS_UTC = 'TimestampType(isAdjustedToUTC=1, unit=TimeUnit(MILLIS=<null>, MICROS=<null>, NANOS=NanoSeconds()))';
const NANOS_LOCAL = 'TimestampType(isAdjustedToUTC=0, unit=TimeUnit(MILLIS=<null>, MICROS=<null>, NANOS=NanoSeconds()))';

// ---- timestamp_ns, timestamptz_ns, unknown ----

/** Rows of (id, tsn, tstzn): nanoseconds since the epoch, chosen at the edges DuckDB writes, around the epoch and at random; some null. */
function nanosRows(): Array<[number, bigint | null, bigint | null]> {
  const fixed: bigint[] = [
    -9223286400000000000n, // 1677-09-22 00:00:00, the first instant Thund writes
    9223372036854775806n, // 2262-04-11 23:47:16.854775806, the last
    -1n,
    0n,
    1n,
    1510871468000001001n, // 2017-11-16T22:31:08.000001001 (the spec's bucket vector)
    -86_400_000_000_001n,
    999n,
  ];
  const random = Array.from({ length: 300 }, (_, i) => BigInt(Math.floor((Math.random() - 0.5) * 2 * 9.2e18)) / 1000n * 1000n + BigInt(i % 1000));
  const values = [...fixed, ...random];
  return values.map((v, i) => [i, i % 11 === 5 ? null : v, i % 13 === 7 ? null : values[(i * 7) % values.length]!]);
}

function nanosQuery(rows: ReadonlyArray<[number, bigint | null, bigint | null]>): string {
  const values = rows.map(([id, a, b]) => `(${id}, ${a === null ? 'NULL' : `${a}`}, ${b === null ? 'NULL' : `${b}`})`).join(', ');
  return (
    `SELECT id::BIGINT AS id, make_timestamp_ns(a::BIGINT) AS tsn, make_timestamp_ns(b::BIGINT) AS tstzn, CAST(NULL AS "NULL") AS nothing` +
    ` FROM (VALUES ${values}) v(id, a, b)`
  );
}

const nanosFields = (): NestedField[] =>
  assignFreshIds([
    { name: 'id', required: false, type: primitive('long') },
    { name: 'tsn', required: false, type: primitive('timestamp_ns') },
    { name: 'tstzn', required: false, type: primitive('timestamptz_ns') },
    { name: 'nothing', required: false, type: primitive('unknown') },
  ]).fields;

describe('timestamp_ns and timestamptz_ns in a v3 table', () => {
  it('writes nanoseconds with the UTC flag per type, exact bounds and partition tuples, and reads them back exactly', async () => {
    const fields = nanosFields();
    const spec: PartitionSpec = {
      specId: 0,
      fields: [
        { sourceId: 3, fieldId: 1000, name: 'tstzn_day', transform: 'day' },
        { sourceId: 2, fieldId: 1001, name: 'tsn_bucket', transform: 'bucket[4]' },
      ],
    };
    await warehouse.catalog.createTable(ID, { schema: { schemaId: 0, identifierFieldIds: [], fields }, partitionSpec: spec, properties: V3 });
    const metadata = await loaded();
    expect(metadata.formatVersion).toBe(3);
    const rows = nanosRows();
    const files = await writePartitionedDataFiles({
      session: warehouse.session,
      query: nanosQuery(rows),
      schema: currentSchema(metadata),
      spec,
      dataLocation: dataLocation(metadata),
      io: warehouse.io,
      properties: metadata.properties,
      writerName: 'test',
    });
    expect(files.length).toBeGreaterThan(4);
    await append(files);

    // The Parquet schema: NANOS with the UTC flag only for timestamptz_ns; no column for unknown.
    for (const file of files) {
      const columns = await parquetColumns(file);
      expect([...columns.keys()].sort()).toEqual(['id', 'tsn', 'tstzn']);
      expect(columns.get('tsn')).toEqual([2, NANOS_LOCAL]);
      expect(columns.get('tstzn')).toEqual([3, NANOS_UTC]);
    }

    // Read back to the nanosecond; unknown reads as a NULL-typed null.
    const plain = await scan(
      `id::INTEGER AS id, epoch_ns(tsn)::VARCHAR AS tsn, epoch_ns(tstzn)::VARCHAR AS tstzn, nothing, typeof(nothing) AS nothing_type, typeof(tstzn) AS tstzn_type`,
      'id',
    );
    expect(plain.map((r) => [r['id'], r['tsn'], r['tstzn']])).toEqual(rows.map(([id, a, b]) => [id, a === null ? null : String(a), b === null ? null : String(b)]));
    expect(new Set(plain.map((r) => r['nothing']))).toEqual(new Set([null]));
    expect(plain[0]!['nothing_type']).toBe('"NULL"');
    expect(plain[0]!['tstzn_type']).toBe('TIMESTAMP_NS');

    // Per file: the rows it holds (by position scan), their exact min/max against the bounds, and the partition tuple.
    const day = bindTransform(parseTransform('day'), primitive('timestamptz_ns'), { partitionField: 'tstzn_day' });
    const bucket = bindTransform(parseTransform('bucket[4]'), primitive('timestamp_ns'), { partitionField: 'tsn_bucket' });
    const byId = new Map(rows.map((r) => [r[0], r]));
    const located = await openTableRows({ session: warehouse.session, io: warehouse.io, metadata: await loaded(), positions: true });
    try {
      const idsByFile = await warehouse.session.queryJson(`SELECT ${FILE_COLUMN} AS file, list(id::INTEGER) AS ids FROM (${located.sql}) GROUP BY 1`);
      expect(idsByFile.length).toBe(files.length);
      for (const { file: path, ids } of idsByFile as { file: string; ids: number[] }[]) {
        const file = files.find((f) => f.filePath === path)!;
        const held = ids.map((id) => byId.get(id)!);
        for (const [column, fieldId, index] of [['tsn', 2, 1], ['tstzn', 3, 2]] as const) {
          const values = held.map((r) => r[index]).filter((v): v is bigint => v !== null);
          const lower = file.lowerBounds?.get(fieldId);
          const upper = file.upperBounds?.get(fieldId);
          if (values.length === 0) continue;
          const min = values.reduce((a, b) => (b < a ? b : a));
          const max = values.reduce((a, b) => (b > a ? b : a));
          expect(lower?.length, `${column} lower bound of ${path}`).toBe(8);
          expect(decodeSingleValue(primitive(column === 'tsn' ? 'timestamp_ns' : 'timestamptz_ns'), lower!), column).toBe(min);
          expect(decodeSingleValue(primitive(column === 'tsn' ? 'timestamp_ns' : 'timestamptz_ns'), upper!), column).toBe(max);
        }
        for (const [, tsn, tstzn] of held) {
          expect(file.partition.get(1000), path).toEqual(day.apply(tstzn));
          expect(file.partition.get(1001), path).toEqual(bucket.apply(tsn));
        }
      }
    } finally {
      await located.release();
    }
  });

  it('reads a file whose timestamptz_ns column DuckDB alone would cut to microseconds', async () => {
    const fields = nanosFields();
    await warehouse.catalog.createTable(ID, { schema: { schemaId: 0, identifierFieldIds: [], fields }, properties: V3 });
    const metadata = await loaded();
    const rows: Array<[number, bigint | null, bigint | null]> = [[1, 1n, 1510871468000001001n]];
    const files = await writeDataFiles({
      session: warehouse.session,
      query: nanosQuery(rows),
      schema: currentSchema(metadata),
      specId: 0,
      dataLocation: dataLocation(metadata),
      io: warehouse.io,
      properties: metadata.properties,
      writerName: 'test',
    });
    await append(files);
    const path = quoteLiteral(fromFileUri(files[0]!.filePath));
    const [raw] = await warehouse.session.queryJson(`SELECT typeof(tstzn) AS t, epoch_us(tstzn)::VARCHAR AS us FROM read_parquet(${path})`);
    expect(raw).toEqual({ t: 'TIMESTAMP WITH TIME ZONE', us: '1510871468000001' });
    expect(await scan('epoch_ns(tstzn)::VARCHAR AS ns', 'ns')).toEqual([{ ns: '1510871468000001001' }]);
    // The scan read a private copy: the table's file keeps its UTC flag.
    expect((await parquetColumns(files[0]!)).get('tstzn')).toEqual([3, NANOS_UTC]);
  });

  it('refuses the v3 types in a v2 table, when created and when a schema change adds one', async () => {
    const ns = assignFreshIds([{ name: 'ts', required: false, type: primitive('timestamp_ns') }]).fields;
    const create = warehouse.catalog.createTable(ID, { schema: { schemaId: 0, identifierFieldIds: [], fields: ns } });
    await expect(create).rejects.toThrow(IcebergFormatError);
    await expect(warehouse.catalog.createTable(ID, { schema: { schemaId: 0, identifierFieldIds: [], fields: ns } })).rejects.toThrow(
      /Invalid type for ts: timestamp_ns is not supported until v3/,
    );
    const plain = assignFreshIds([{ name: 'id', required: false, type: primitive('long') }]).fields;
    await warehouse.catalog.createTable(ID, { schema: { schemaId: 0, identifierFieldIds: [], fields: plain } });
    const metadata = await loaded();
    for (const kind of ['timestamptz_ns', 'unknown', 'variant'] as const) {
      const update = schemaUpdate(metadata, [...plain, { id: 2, name: 'added', required: false, type: primitive(kind) }]);
      await expect(warehouse.catalog.commitTable(ID, update.requirements, update.updates), kind).rejects.toThrow(
        new RegExp(`Invalid type for added: ${kind} is not supported until v3`),
      );
    }
    const withDefault = schemaUpdate(metadata, [...plain, { id: 2, name: 'added', required: false, type: primitive('int'), initialDefault: 1, writeDefault: 1 }]);
    await expect(warehouse.catalog.commitTable(ID, withDefault.requirements, withDefault.updates)).rejects.toThrow(
      /Invalid initial default for added: non-null default is not supported until v3/,
    );
  });
});

describe('variant, geometry and geography columns', () => {
  it('are kept in the table\'s metadata, but reading or writing them is refused naming the column and the type', async () => {
    const fields: NestedField[] = [
      { id: 1, name: 'id', required: false, type: primitive('long') },
      { id: 2, name: 'payload', required: false, type: primitive('variant') },
      { id: 3, name: 'shape', required: false, type: { kind: 'geometry', crs: 'srid:3857' } },
    ];
    await warehouse.catalog.createTable(ID, { schema: { schemaId: 0, identifierFieldIds: [], fields }, properties: V3 });
    const metadata = await loaded();
    expect(currentSchema(metadata).fields.map((f) => f.type)).toEqual(fields.map((f) => f.type));
    const scanned = openTableRows({ session: warehouse.session, io: warehouse.io, metadata });
    await expect(scanned).rejects.toThrow(IcebergFormatError);
    await expect(openTableRows({ session: warehouse.session, io: warehouse.io, metadata })).rejects.toThrow(/Column "payload" has type variant, which cannot be read or written/);
    const write = writeDataFiles({
      session: warehouse.session,
      query: 'SELECT 1::BIGINT AS id, NULL AS payload, NULL AS shape',
      schema: currentSchema(metadata),
      specId: 0,
      dataLocation: dataLocation(metadata),
      io: warehouse.io,
      properties: metadata.properties,
      writerName: 'test',
    });
    await expect(write).rejects.toThrow(/Column "payload" has type variant/);
  });
});

// ---- column defaults written and read by Thund ----

describe('column defaults', () => {
  it('reads initial-default for files written before the column, and writes write-default where the flow leaves it out', async () => {
    const base = assignFreshIds([{ name: 'id', required: false, type: primitive('long') }]).fields;
    await warehouse.catalog.createTable(ID, { schema: { schemaId: 0, identifierFieldIds: [], fields: base }, properties: V3 });
    let metadata = await loaded();
    const old = await writeDataFiles({
      session: warehouse.session,
      query: 'SELECT range::BIGINT AS id FROM range(0, 3)',
      schema: currentSchema(metadata),
      specId: 0,
      dataLocation: dataLocation(metadata),
      io: warehouse.io,
      properties: metadata.properties,
      writerName: 'test',
    });
    await append(old);

    // Added columns: a required one (allowed in v3 with an initial-default), timestamps, binary.
    metadata = await loaded();
    const added: NestedField[] = [
      { id: 2, name: 'region', required: true, type: primitive('string'), initialDefault: 'eu', writeDefault: 'us' },
      { id: 3, name: 'seen_at', required: false, type: primitive('timestamptz_ns'), initialDefault: '2020-01-01T01:00:00.000000001+01:00', writeDefault: '2021-06-01T00:00:00.5+00:00' },
      { id: 4, name: 'tag', required: false, type: primitive('binary'), initialDefault: '00ff', writeDefault: 'cafe' },
      { id: 5, name: 'n', required: false, type: { kind: 'decimal', precision: 9, scale: 2 }, initialDefault: '-1.50' },
    ];
    const update = schemaUpdate(metadata, [...base, ...added]);
    await warehouse.catalog.commitTable(ID, update.requirements, update.updates);
    metadata = await loaded();
    expect(currentSchema(metadata).fields.map((f) => [f.name, f.initialDefault, f.writeDefault])).toEqual([
      ['id', undefined, undefined],
      ['region', 'eu', 'us'],
      ['seen_at', '2020-01-01T01:00:00.000000001+01:00', '2021-06-01T00:00:00.5+00:00'],
      ['tag', '00ff', 'cafe'],
      ['n', '-1.50', undefined],
    ]);

    // A flow producing id and n only: region, at and tag get their write-defaults (n is fed).
    const output = await describeFlow(warehouse.session, 'f', 'SELECT 10::BIGINT AS id, 2.25::DECIMAL(9,2) AS n');
    const evolution = evolveSchema({ table: 'db.t', fields: currentSchema(metadata).fields, lastColumnId: metadata.lastColumnId, incoming: output.fields });
    expect(evolution.changes).toEqual([]);
    expect(evolution.absentColumns).toEqual([]);
    const fresh = await writeDataFiles({
      session: warehouse.session,
      query: projectEvolved(output, evolution.columns),
      schema: currentSchema(metadata),
      specId: 0,
      dataLocation: dataLocation(metadata),
      io: warehouse.io,
      properties: metadata.properties,
      writerName: 'test',
    });
    await append(fresh);
    // The written file holds the defaults themselves (as any reader sees them).
    const [inFile] = await warehouse.session.queryJson(
      `SELECT region, epoch_ns(seen_at)::VARCHAR AS seen_at, hex(tag) AS tag FROM read_parquet(${quoteLiteral(fromFileUri(fresh[0]!.filePath))})`,
    );
    expect(inFile).toEqual({ region: 'us', seen_at: '1622505600500000000', tag: 'CAFE' });

    expect(await scan(`id::INTEGER AS id, region, epoch_ns(seen_at)::VARCHAR AS seen_at, hex(tag) AS tag, n::VARCHAR AS n`, 'id')).toEqual([
      ...[0, 1, 2].map((id) => ({ id, region: 'eu', seen_at: '1577836800000000001', tag: '00FF', n: '-1.50' })),
      { id: 10, region: 'us', seen_at: '1622505600500000000', tag: 'CAFE', n: '2.25' },
    ]);
  });

  it('refuses to read a table whose nested fields carry initial defaults rather than read them as null', async () => {
    const fields: NestedField[] = [
      { id: 1, name: 'st', required: false, type: { kind: 'struct', fields: [{ id: 2, name: 'x', required: false, type: primitive('int'), initialDefault: 7 }] } },
    ];
    await warehouse.catalog.createTable(ID, { schema: { schemaId: 0, identifierFieldIds: [], fields }, properties: V3 });
    const metadata = await loaded();
    const files = await writeDataFiles({
      session: warehouse.session,
      query: "SELECT {'x': 1} AS st",
      schema: currentSchema(metadata),
      specId: 0,
      dataLocation: dataLocation(metadata),
      io: warehouse.io,
      properties: metadata.properties,
      writerName: 'test',
    });
    await append(files);
    await expect(scan('st', 'st')).rejects.toThrow(/Column "st.x" has an initial-default inside a struct/);
  });
});

// ---- foreign fixtures ----

/** Read-only FileIO over a fixture table whose locations are relative to `root`. */
function fixtureIo(root: string): FileIO {
  const local = (location: string): string => {
    const path = location.replace(/^file:(\/\/)?/, '');
    return isAbsolute(path) ? path : join(root, path);
  };
  const refuse = async (): Promise<never> => {
    throw new Error('fixture tables are read-only');
  };
  return {
    read: async (location) => readFile(local(location)),
    exists: async (location) => existsSync(local(location)),
    length: async (location) => BigInt((await stat(local(location))).size),
    writeNew: refuse,
    delete: refuse,
    localPathFor: (location) => local(location),
  };
}

async function latestMetadata(table: string): Promise<{ metadata: TableMetadata; json: Record<string, unknown> }> {
  const dir = join(PERSISTENT, table, 'metadata');
  const names = (await readdir(dir)).filter((n) => n.endsWith('.metadata.json')).sort();
  const path = join(dir, names[names.length - 1]!);
  const bytes = await readFile(path);
  return { metadata: readTableMetadata(bytes, path), json: JSON.parse(bytes.toString('utf8')) as Record<string, unknown> };
}

describe('foreign fixtures', () => {
  it('finds the fixtures folder', () => {
    expect(existsSync(PERSISTENT), `fixtures folder ${PERSISTENT} (THUND_FIXTURES)`).toBe(true);
  });

  it('reads pyiceberg\'s add_columns_with_defaults with each added column\'s initial-default in the rows written before it', async () => {
    const { metadata, json } = await latestMetadata('add_columns_with_defaults/default.db/add_columns_with_defaults');
    const io = fixtureIo(DUCK_ROOT);
    // Canonical text of every column, so the comparison does not depend on how values print.
    const select = [
      'col1',
      'col_boolean',
      'col_integer',
      'col_long::VARCHAR AS col_long',
      'col_float::DOUBLE AS col_float',
      'col_double',
      'col_decimal::VARCHAR AS col_decimal',
      'strftime(col_date, \'%Y-%m-%d\') AS col_date',
      'epoch_us(col_time)::VARCHAR AS col_time',
      'epoch_us(col_timestamp)::VARCHAR AS col_timestamp',
      'epoch_us(col_timestamptz)::VARCHAR AS col_timestamptz',
      'col_string',
      'col_uuid::VARCHAR AS col_uuid',
      'lower(hex(col_fixed)) AS col_fixed',
      'lower(hex(col_binary)) AS col_binary',
    ].join(', ');
    const got = await scan(select, 'col1', metadata, io);

    // Expected, old rows: col1 from DuckDB reading the first file by name, the rest the metadata's initial-default values.
    const schema = (json['schemas'] as { 'schema-id': number; fields: { name: string; 'initial-default'?: unknown }[] }[]).find((s) => s['schema-id'] === json['current-schema-id'])!;
    const initial = new Map(schema.fields.map((f) => [f.name, f['initial-default']]));
    const isoMicros = (text: string): string => {
      const [whole, fraction = ''] = text.replace(/(Z|[+-]\d\d:\d\d)$/, '').split('.') as [string, string?];
      return String(BigInt(Date.parse(`${whole}Z`)) * 1000n + BigInt(fraction.padEnd(6, '0').slice(0, 6)));
    };
    const defaults = {
      col_boolean: initial.get('col_boolean'),
      col_integer: initial.get('col_integer'),
      col_long: '-9223372036854775808', // JSON.parse cannot hold it; the fixture's text says so
      col_float: Math.fround(initial.get('col_float') as number),
      col_double: initial.get('col_double'),
      col_decimal: initial.get('col_decimal'),
      col_date: initial.get('col_date'),
      col_time: isoMicros(`1970-01-01T${initial.get('col_time') as string}`),
      col_timestamp: isoMicros(initial.get('col_timestamp') as string),
      col_timestamptz: isoMicros(initial.get('col_timestamptz') as string),
      col_string: initial.get('col_string'),
      col_uuid: initial.get('col_uuid'),
      col_fixed: initial.get('col_fixed'),
      col_binary: initial.get('col_binary'),
    };
    const dataDir = join(PERSISTENT, 'add_columns_with_defaults/default.db/add_columns_with_defaults/data');
    const [oldFile, newFile] = await Promise.all(['0bb8c58e', 'f1823874'].map(async (id) => join(dataDir, (await readdir(dataDir)).find((n) => n.includes(id))!)));
    const oldRows = await warehouse.session.queryJson(`SELECT col1 FROM read_parquet(${quoteLiteral(oldFile!)}) ORDER BY col1`);
    // The newer file holds every column: DuckDB reads it by name (its time column is TIMETZ and
    // its uuid a plain 16-byte FIXED there), the uuid formatted here.
    const raw = select.replace('epoch_us(col_time)', 'epoch_us(col_time::TIME)').replace('col_uuid::VARCHAR', 'lower(hex(col_uuid))');
    const newRows = (await warehouse.session.queryJson(`SELECT ${raw} FROM read_parquet(${quoteLiteral(newFile!)}) ORDER BY col1`)).map((r) => ({
      ...r,
      col_uuid: String(r['col_uuid']).replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5'),
    }));
    expect(oldRows.length).toBe(2);
    expect(newRows.length).toBe(1);
    const expected: Record<string, unknown>[] = [...oldRows.map((r) => ({ col1: r['col1'], ...defaults })), ...newRows];
    expected.sort((a, b) => String(a['col1']).localeCompare(String(b['col1'])));
    expect(got).toEqual(expected);
    // Spot checks against the metadata text itself.
    expect(got[0]).toMatchObject({ col1: 'click', col_date: '2003-10-20', col_timestamptz: '12345', col_fixed: '010203ff03', col_long: '-9223372036854775808' });
  });

  it('reads the timestamptz_ns fixture (no snapshot) with its column typed TIMESTAMP_NS, and its schema and spec round-trip values exactly', async () => {
    const { metadata } = await latestMetadata('timestamptz_ns');
    expect(metadata.formatVersion).toBe(3);
    const schema = currentSchema(metadata);
    expect(schema.fields.map((f) => [f.name, f.type.kind])).toEqual([
      ['id', 'int'],
      ['val', 'timestamptz_ns'],
    ]);
    const rows = await openTableRows({ session: warehouse.session, io: fixtureIo(DUCK_ROOT), metadata });
    try {
      expect(await warehouse.session.queryJson(`SELECT * FROM (${rows.sql})`)).toEqual([]);
      const described = await warehouse.session.queryJson(`DESCRIBE SELECT * FROM (${rows.sql})`);
      expect(described.map((r) => [r['column_name'], r['column_type']])).toEqual([
        ['id', 'INTEGER'],
        ['val', 'TIMESTAMP_NS'],
      ]);
    } finally {
      await rows.release();
    }

    // The same schema and year/month/day/hour spec in a Thund table: written and read back exactly.
    const spec = metadata.partitionSpecs.find((s) => s.specId === metadata.defaultSpecId)!;
    expect(spec.fields.map((f) => f.transform)).toEqual(['year', 'month', 'day', 'hour']);
    await warehouse.catalog.createTable(ID, { schema: { ...schema, schemaId: 0 } as Schema, partitionSpec: spec, properties: V3 });
    const table = await loaded();
    const values = [-1n, 0n, 1_000_000_001n, 1510871468000001001n, -9223286400000000000n + 123n, 9223372036854775806n, 86_399_999_999_999n];
    const files = await writePartitionedDataFiles({
      session: warehouse.session,
      query: `SELECT id::INTEGER AS id, make_timestamp_ns(v) AS val FROM (VALUES ${values.map((v, i) => `(${i}, ${v}::BIGINT)`).join(', ')}) t(id, v)`,
      schema: currentSchema(table),
      spec: { ...spec, specId: table.defaultSpecId },
      dataLocation: dataLocation(table),
      io: warehouse.io,
      properties: table.properties,
      writerName: 'test',
    });
    await append(files);
    expect(await scan('id, epoch_ns(val)::VARCHAR AS val', 'id')).toEqual(values.map((v, i) => ({ id: i, val: String(v) })));
    const transforms = spec.fields.map((f) => [f.fieldId, bindTransform(parseTransform(f.transform), primitive('timestamptz_ns'), { partitionField: f.name })] as const);
    expect(files.length).toBe(values.length - 1); // 0 and 1_000_000_001 share the hour 1970-01-01T00; the rest differ
    for (const file of files) {
      const columns = await parquetColumns(file);
      expect(columns.get('val')).toEqual([2, NANOS_UTC]);
      const lower = decodeSingleValue(primitive('timestamptz_ns'), file.lowerBounds!.get(2)!) as bigint;
      for (const [fieldId, transform] of transforms) expect(file.partition.get(fieldId), `${transform.transform.kind} of ${lower}`).toEqual(transform.apply(lower));
    }
  });
});
